//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers

/// What a user interface hands the client: typed lines and the end of input, as a stream, and
/// whether the end has come, which can be asked at once.
///
/// The client reads the stream in a task of its own, so after a failed first attempt it may
/// not have seen an end that came before the failure; ``hasEnded`` tells it without waiting.
public final class ChatInputFeed: Sendable {
    /// What was typed, in order, then ``ChatUserInput/end``.
    public let inputs: AsyncStream<ChatUserInput>
    private let continuation: AsyncStream<ChatUserInput>.Continuation
    private let ended = NIOLockedValueBox(false)

    /// An empty feed.
    public init() {
        (inputs, continuation) = AsyncStream.makeStream(of: ChatUserInput.self)
    }

    /// Whether the end of input has been fed (``end()``, or ``finish()``).
    public var hasEnded: Bool { ended.withLockedValue { $0 } }

    /// Feeds one submitted line.
    public func type(_ line: String) { continuation.yield(.line(line)) }

    /// Feeds the end of input (Ctrl-C, Ctrl-D on an empty line); more may follow.
    public func end() {
        ended.withLockedValue { $0 = true }
        continuation.yield(.end)
    }

    /// Feeds the end of input and closes the stream: nothing can be read any more.
    public func finish() {
        end()
        continuation.finish()
    }
}
