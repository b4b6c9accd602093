//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import ExampleSupport
import Foundation

/// Lines from standard input, lines to standard output, nothing else: for scripts and pipes.
public final class PlainUserInterface: ChatUserInterface {
    private let feed = ChatInputFeed()
    public var inputs: AsyncStream<ChatUserInput> { feed.inputs }
    public var inputHasEnded: Bool { feed.hasEnded }
    public var isTerminal: Bool { false }

    /// Starts reading standard input on a thread of its own (a blocking read must not hold a
    /// thread of Swift's cooperative pool).
    public init() {
        // Plain read(2), not readLine(): a thread blocked in readLine holds stdio's lock on
        // standard input, which anything flushing every stream would then wait for.
        let thread = Thread { [feed] in
            var framer = IRCLineFramer(maxLineLength: 64 * 1024)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count <= 0 { break }
                framer.append(buffer[0..<count])
                while let event = framer.next() {
                    if case .line(let bytes) = event {
                        feed.type(String(decoding: bytes, as: UTF8.self))
                    }
                }
            }
            feed.finish()
        }
        thread.name = "chat-client stdin"
        thread.start()
    }

    public func show(_ line: String) { printLine(line) }
    /// Errors go to standard error, where a script that reads the output does not take them
    /// for chat, and its user still sees them.
    public func showError(_ line: String) { printError(line) }
    public func setPrompt(_ prompt: String) {}
    public func restore() {}
}
