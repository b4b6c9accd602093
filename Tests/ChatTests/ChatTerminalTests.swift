//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// The built `chat-client` in a real terminal (a tmux pane): what it leaves behind.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ChatTerminalTests {
    /// Whatever ends the client, a crash included, the shell after it has its echo and line
    /// editing back. The shell in the pane runs `stty -a` once the client has died.
    @Test(arguments: [SIGILL, SIGSEGV, SIGABRT])
    func aCrashPutsTheTerminalBack(signal: Int32) async throws {
        try await ChatServerFixture.with { _, port in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "chat-tty-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let settings = directory.appendingPathComponent("stty").path
            try await Self.inTerminal({
                "sh -c 'SWIFT_BACKTRACE=enable=no \($0) --host 127.0.0.1 --port \(port) --nick crash --no-reconnect; stty -a > \(settings); sleep 60'"
            }) { session in
                try await session.expectScreen(containing: "registered as crash")
                let shell = try #require(Int32(await session.paneValue("#{pane_pid}")))
                let clientPID = try #require(Self.children(of: shell).first, "no chat-client under the pane's shell")
                kill(clientPID, signal)
                let written = await eventually(20) {
                    ((try? String(contentsOfFile: settings, encoding: .utf8)) ?? "").contains("speed")
                }
                #expect(written, "the shell never ran stty after the client")
                let words = Set(
                    ((try? String(contentsOfFile: settings, encoding: .utf8)) ?? "").split(
                        whereSeparator: \.isWhitespace))
                #expect(
                    words.contains("echo") && words.contains("icanon"),
                    "after signal \(signal) the terminal was left as: \(words.sorted())")
            }
        }
    }

    /// Ctrl-C while the client looks for servers ends it at once, with the interrupt's status,
    /// rather than after the whole browse with a connection attempt and status 0.
    @Test func ctrlCWhileLookingForServersEndsTheClientAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-tty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = directory.appendingPathComponent("status").path
        // 60 s of browsing: long enough that only the Ctrl-C can end it within the wait below.
        try await Self.inTerminal({
            "sh -c '\($0) --browse-time 60 --nick browsing; echo \"status $?\" > \(status); sleep 60'"
        }) { session in
            try await session.expectScreen(containing: "looking for chat servers")
            try await session.press("C-c")
            let ended = await eventually(10) { FileManager.default.fileExists(atPath: status) }
            let screen = await session.screen()
            #expect(ended, "the client went on browsing after Ctrl-C: \(screen)")
            let written = (try? String(contentsOfFile: status, encoding: .utf8)) ?? ""
            #expect(written == "status 130\n", "\(written)")
            #expect(!screen.contains("connecting to"), "\(screen)")
        }
    }

    /// 60 lines pasted into the terminal at once, against the chat server's default flood
    /// limits (10 lines at once, then 2 a second, 30 waiting): the client paces them, so every
    /// one reaches the channel, in order, and the sender is never dropped. Sent as typed, the
    /// paste passes the 40 the server allows and loses most of its lines.
    @Test func aPasteIntoTheTerminalReachesTheChannelWhole() async throws {
        try await Self.joinedInTerminal(nick: "paster", channel: "#paste") { session, port in
            let reader = IRCTestClient(port: port)
            try await reader.register("reader")
            try await reader.join("#paste")
            let lines = (1...60).map { "paste line \($0)" }
            try await session.paste(lines.joined(separator: "\n") + "\n")
            var received: [String] = []
            while received.count < lines.count {
                let message = try await reader.waitFor("the next line", timeout: 30) {
                    $0.command == "PRIVMSG" || ($0.command == "QUIT" && $0.sourceNickname == "paster")
                }
                guard message.command == "PRIVMSG" else {
                    Issue.record("the sender was dropped after \(received.count) lines: \(message)")
                    break
                }
                received.append(message.parameters[1])
            }
            #expect(received == lines)
            await reader.close()
        }
    }

    /// Narrowed, then widened again, the terminal shows the input line once: what the old width's
    /// line left on the rows the terminal wrapped it over is cleared, not left as a stale copy.
    @Test func narrowingAndWideningLeavesNoStaleInputLine() async throws {
        try await Self.joinedInTerminal(nick: "stale", channel: "#stale", width: 100, height: 20) { session, _ in
            let typed = (1...14).map { "word\($0)" }.joined(separator: " ") + " LASTWORD"
            try await session.typeWithoutEnter(typed)
            try await session.expectScreen(containing: "LASTWORD")
            try await session.resize(width: 40, height: 20)
            try await Task.sleep(for: .milliseconds(500))
            try await session.resize(width: 100, height: 20)
            // Every row that shows typed words is the input line itself, drawn once.
            var rows: [Substring] = []
            var settled = false
            for _ in 0..<50 where !settled {
                try? await Task.sleep(for: .milliseconds(100))
                rows = await session.screen().split(separator: "\n").filter { $0.contains("word") }
                settled = rows.count == 1 && rows[0].hasPrefix("[#stale] ") && rows[0].hasSuffix("LASTWORD")
            }
            #expect(settled, "rows showing typed words: \(rows)")
        }
    }

    /// When the terminal gets narrower, the input line is drawn again to fit, its cursor end
    /// (what was typed last) in view.
    @Test func theInputLineIsRedrawnWhenTheTerminalIsResized() async throws {
        try await Self.joinedInTerminal(nick: "wide", channel: "#resize", width: 100, height: 20) { session, _ in
            let typed = (1...15).map { "word\($0)" }.joined(separator: " ") + " LASTWORD"
            try await session.typeWithoutEnter(typed)
            try await session.expectScreen(containing: "LASTWORD")
            try await session.resize(width: 40, height: 20)
            // Drawn for 100 columns, the line would be wrapped over three rows by tmux's
            // reflow; drawn again, it is one row: the prompt, then the text's end.
            var redrawn = false
            for _ in 0..<100 where !redrawn {
                redrawn = await session.screen().split(separator: "\n").contains {
                    $0.hasPrefix("[#resize] ") && $0.hasSuffix("LASTWORD")
                }
                if !redrawn { try? await Task.sleep(for: .milliseconds(100)) }
            }
            let screen = await session.screen()
            #expect(redrawn, "after the resize the screen shows:\n\(screen)")
        }
    }

    /// Runs `body` with a tmux pane of `width`×`height` running `command` (given chat-client's
    /// path), and stops the pane after it, whatever `body` does.
    static func inTerminal(
        _ command: (String) -> String, width: Int = 120, height: Int = 30, _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let tmux = try BuiltProducts.installed("tmux", package: "tmux")
        let client = try BuiltProducts.path("chat-client")
        let session = TmuxSession(tmux: tmux, socket: "chat-tty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try await session.start(command(client), width: width, height: height)
            try await body(session)
            await session.stop()
        } catch {
            await session.stop()
            throw error
        }
    }

    /// Runs `body` with chat-client in a tmux pane, connected to a chat server of the test's own
    /// as `nick` and talking in `channel`; `body` gets the pane and the server's port.
    static func joinedInTerminal(
        nick: String, channel: String, width: Int = 120, height: Int = 30,
        _ body: (TmuxSession, Int) async throws -> Void
    ) async throws {
        try await ChatServerFixture.with { _, port in
            try await inTerminal(
                { "\($0) --host 127.0.0.1 --port \(port) --nick \(nick) --channel '\(channel)' --no-reconnect" },
                width: width, height: height
            ) { session in
                try await session.expectScreen(containing: "[\(channel)]")
                try await body(session, port)
            }
        }
    }

    /// The child processes of `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0) }
    }
}
