//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Something the user did at the keyboard.
public enum ChatUserInput: Sendable, Hashable {
    /// A line typed and submitted.
    case line(String)
    /// Ctrl-C, Ctrl-D on an empty line, or the end of standard input.
    case end
}

/// Where the chat client shows lines and gets typed ones: a terminal with an input line that
/// keeps what is being typed, or plain standard input and output for scripts.
public protocol ChatUserInterface: Sendable {
    /// What the user types, line by line, ending with ``ChatUserInput/end``.
    var inputs: AsyncStream<ChatUserInput> { get }
    /// Whether ``ChatUserInput/end`` has been fed to ``inputs``, though it may not have been
    /// read yet.
    var inputHasEnded: Bool { get }
    /// Whether this is an interactive terminal (colours, prompts).
    var isTerminal: Bool { get }
    /// Shows one rendered line above the input line.
    func show(_ line: String)
    /// Shows one rendered error line: where errors go (standard error, for plain output), or
    /// as ``show(_:)`` does.
    func showError(_ line: String)
    /// Sets the text in front of the input line (`[#chat] `).
    func setPrompt(_ prompt: String)
    /// Puts the terminal back as it was.
    func restore()
}

extension ChatUserInterface {
    /// On a terminal an error is one more line on screen.
    public func showError(_ line: String) { show(line) }
}
