//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal UI: incoming lines scroll above an input line that keeps what is being typed.
///
/// The terminal is put in non-canonical mode without echo, and keys go through a
/// ``ChatLineEditor``. Every output line clears the input line, prints, and draws the input
/// line again. ``restore()`` puts the terminal back; call it before exiting. A crash or a
/// hang-up puts it back too (``TerminalCrashGuard``).
public final class TerminalUserInterface: ChatUserInterface {
    private let feed = ChatInputFeed()
    public var inputs: AsyncStream<ChatUserInput> { feed.inputs }
    public var inputHasEnded: Bool { feed.hasEnded }
    public var isTerminal: Bool { true }

    private struct State {
        var editor = ChatLineEditor()
        var prompt = ""
        var restored = false
        /// What Ctrl-C does while set, in place of ending the input (see
        /// ``setInterruptHandler(_:)``).
        var interruptHandler: (@Sendable () -> Void)?
        /// The column the cursor was left at when the input line was last drawn.
        var drawnCursorColumn = 0
    }
    private let state = NIOLockedValueBox(State())
    private let original: termios
    /// Redraws the input line when the terminal's size changes (SIGWINCH), so that it fits the
    /// new width.
    private let resizes: TerminalResizeWatcher

    /// Whether standard input and output are both terminals.
    public static var isAvailable: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// Takes over the terminal and starts reading keys on a thread of its own.
    public init() {
        var saved = termios()
        tcgetattr(0, &saved)
        original = saved
        TerminalCrashGuard.install(restoring: saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)

        resizes = TerminalResizeWatcher { [state] in Self.redrawAfterResize(state) }

        let thread = Thread { [state, feed] in
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count <= 0 { break }
                let outcomes = state.withLockedValue { $0.editor.feed(buffer[0..<count]) }
                for outcome in outcomes {
                    switch outcome {
                    case .edited: break
                    case .submitted(let line): feed.type(line)
                    case .interrupted:
                        if let handler = state.withLockedValue({ $0.interruptHandler }) {
                            handler()
                        } else {
                            feed.end()
                        }
                    }
                }
                Self.redraw(state)
            }
            feed.finish()
        }
        thread.name = "chat-client keys"
        thread.start()
    }

    public func show(_ line: String) {
        state.withLockedValue { state in
            guard !state.restored else { return }
            Self.write("\r\u{1B}[2K" + line + "\r\n" + Self.inputLine(&state))
        }
    }

    /// While the program is busy with something that reads no input (looking for servers),
    /// Ctrl-C calls `handler` at once, as the interrupt signal would, instead of ending the
    /// input that nobody reads yet; `nil` puts Ctrl-C back to ending the input. The terminal
    /// is in raw mode, so Ctrl-C is a key here, not a signal.
    public func setInterruptHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLockedValue { $0.interruptHandler = handler }
    }

    public func setPrompt(_ prompt: String) {
        state.withLockedValue { $0.prompt = prompt }
        Self.redraw(state)
    }

    public func restore() {
        let wasRestored = state.withLockedValue { state -> Bool in
            defer { state.restored = true }
            return state.restored
        }
        guard !wasRestored else { return }
        resizes.cancel()
        var original = original
        Self.write("\r\u{1B}[2K")
        tcsetattr(0, TCSANOW, &original)
    }

    private static func redraw(_ state: NIOLockedValueBox<State>) {
        state.withLockedValue { state in
            guard !state.restored else { return }
            write("\r\u{1B}[2K" + inputLine(&state))
        }
    }

    /// The terminal's size changed. A terminal that reflows its lines (tmux, VTE, kitty and
    /// most others) has wrapped the input line drawn for the old width over several rows, the
    /// cursor on one of them: clearing the cursor's row alone would leave the rest of the old
    /// line on screen. So the rows from the old line's first to the end of the screen are
    /// cleared, and the line drawn anew for the new width.
    private static func redrawAfterResize(_ state: NIOLockedValueBox<State>) {
        state.withLockedValue { state in
            guard !state.restored else { return }
            let rowsAbove = state.drawnCursorColumn / max(1, columns())
            let up = rowsAbove > 0 ? "\u{1B}[\(rowsAbove)A" : ""
            write(up + "\r\u{1B}[J" + inputLine(&state))
        }
    }

    /// The prompt and as much of the typed text as fits, the cursor kept in view, and the
    /// cursor put in its place (noted in `state`).
    private static func inputLine(_ state: inout State) -> String {
        let width = max(20, columns() - 1)
        let prompt = String(state.prompt.prefix(width / 2))
        let room = width - prompt.count
        let characters = state.editor.characters
        let start = max(0, state.editor.cursor - room + 1)
        let visible = characters[start..<min(characters.count, start + room)]
        let text = ChatFormatter.printable(String(visible))
        let back = start + visible.count - state.editor.cursor
        state.drawnCursorColumn = prompt.count + state.editor.cursor - start
        return prompt + text + (back > 0 ? "\u{1B}[\(back)D" : "")
    }

    private static func columns() -> Int {
        var size = winsize()
        let result = withUnsafeMutablePointer(to: &size) { ioctl(1, UInt(TIOCGWINSZ), $0) }
        return result == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    private static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }
}
