//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import StreamTaskCore

/// Cuts a byte stream into messages, and frames messages into bytes: the rule of a protocol's
/// framing, as a value.
///
/// A task reads a message with it (`StreamTask.readMessage(framedBy:timeout:)`)
/// by asking ``frameLength(in:)`` about the bytes buffered so far, as they come: the read takes
/// exactly the frame's bytes once they are all there, and leaves the rest buffered. So nothing
/// is read ahead of the reader beyond the task's inbound limit, a timeout loses nothing, and
/// how the stream was cut into reads makes no difference.
///
/// The framers that ship: ``LineFramer``, ``LengthPrefixedFramer``, ``TypeLengthValueFramer``
/// and ``DelimiterFramer``. A framer of your own answers the same four questions.
public protocol MessageFramer: Sendable {
    /// What one frame carries.
    associatedtype Message: Sendable

    /// The longest frame the framer takes, its header and trailer included. Bytes that make no
    /// frame within it fail the read with `StreamTaskError.Code.invalidFrame`
    /// (they stay buffered), so a peer cannot make a reader buffer without bound.
    var maximumFrameLength: Int { get }

    /// Given the bytes buffered so far (a frame starts at the first), the whole frame's length
    /// as soon as they tell it, even when more of it is still to come; `nil` while they do not.
    ///
    /// Called again as more bytes arrive, on all of them, until it returns a length. Throw
    /// (a `StreamTaskError` of code
    /// `StreamTaskError.Code.invalidFrame` says it best) when the bytes cannot
    /// start a frame this framer accepts: a length over the maximum, say.
    func frameLength(in bytes: ByteBuffer) throws -> Int?

    /// The message that a whole frame carries; `frame` holds exactly its bytes.
    func message(fromFrame frame: ByteBuffer) throws -> Message

    /// Writes `message`'s frame at the end of `buffer`. Throws when the message cannot be
    /// framed (it is longer than the framing allows, say).
    func frame(_ message: Message, into buffer: inout ByteBuffer) throws

    /// The stream ended with `remaining` bytes that make no whole frame (there is at least
    /// one): the message they make, if the framing allows a last frame without its end, or
    /// the error to throw. The default throws
    /// `StreamTaskError.Code.truncatedFrame`, saying how many bytes were left.
    func messageAtEnd(_ remaining: ByteBuffer) throws -> Message
}

extension MessageFramer {
    public func messageAtEnd(_ remaining: ByteBuffer) throws -> Message {
        throw StreamTaskError(
            .truncatedFrame,
            "the stream ended inside a frame: \(remaining.readableBytes) bytes were left that make no whole frame")
    }
}

extension StreamTaskError {
    /// The error a framer throws when the bytes at the head of the stream cannot start a frame
    /// it accepts: code `StreamTaskError.Code.invalidFrame`, with `reason` as
    /// its message.
    public static func invalidFrame(_ reason: String) -> StreamTaskError {
        StreamTaskError(.invalidFrame, reason)
    }
}
