//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskCore

extension StreamTask {
    /// Reads one message, framed by `framer`.
    ///
    /// A read like the others, in their order and under their rules: it takes exactly the
    /// frame's bytes once they have all come and leaves what follows buffered; a timeout or a
    /// cancellation loses nothing (the next read gets the bytes); bytes that cannot start a
    /// frame fail it with `StreamTaskError.Code.invalidFrame` and stay buffered. A frame whose
    /// message the framer cannot make fails it with `StreamTaskError.Code.invalidMessage`, and
    /// the frame is gone.
    ///
    /// - Parameter timeout: Seconds to wait for the whole message; 0 waits for ever.
    /// - Returns: The message, or `nil` at the end of the stream. When the stream ends inside a
    ///   frame, the framer's ``MessageFramer/messageAtEnd(_:)`` decides (the shipped framers
    ///   throw `StreamTaskError.Code.truncatedFrame` unless told otherwise).
    public func readMessage<Framer: MessageFramer>(
        framedBy framer: Framer,
        timeout: TimeInterval
    ) async throws -> Framer.Message? {
        let (bytes, atEOF) = try await readFrame(framer.scan, timeout: timeout)
        return try framer.messageOfRead(bytes, atEOF: atEOF)
    }

    /// Reads one message, framed by `framer`, with the session's read timeout.
    public func readMessage<Framer: MessageFramer>(framedBy framer: Framer) async throws -> Framer.Message? {
        try await readMessage(framedBy: framer, timeout: sessionReadTimeout)
    }

    /// The next message, if its whole frame has arrived already; never waits.
    ///
    /// For a reader that handles what has come as one batch: after a `readMessage(framedBy:timeout:)`
    /// returns, this takes the messages that came with it, and `nil` says the batch is over.
    /// It takes a message exactly as that read would, in order with the other reads; it
    /// returns `nil`, taking nothing, when the frame is not all there, when another read is
    /// queued, and when the stream has ended or failed (a read then says how). Bytes that
    /// cannot start a frame are left for a read to report, too.
    ///
    /// - Throws: `StreamTaskError.Code.invalidMessage` when the framer could make no message
    ///   of the frame, which is then gone.
    public func readBufferedMessage<Framer: MessageFramer>(framedBy framer: Framer) throws -> Framer.Message? {
        guard let frame = readBufferedFrame(framer.scan) else { return nil }
        return try framer.messageOfFrame(frame)
    }

    /// Frames `message` with `framer` and writes it: returns as `write(_:timeout:)`
    /// does, under its rules. A message the framer cannot frame throws
    /// `StreamTaskError.Code.invalidArgument`, and nothing is sent.
    public func send<Framer: MessageFramer>(
        _ message: Framer.Message,
        framedBy framer: Framer,
        timeout: TimeInterval
    ) async throws {
        var buffer = ByteBuffer()
        try framer.frame(message, into: &buffer)
        try await write(buffer, timeout: timeout)
    }

    /// Frames `message` with `framer` and writes it, with the session's write timeout.
    public func send<Framer: MessageFramer>(_ message: Framer.Message, framedBy framer: Framer) async throws {
        try await send(message, framedBy: framer, timeout: sessionWriteTimeout)
    }

    /// The messages the stream brings, framed by `framer`, read one at a time as the loop asks
    /// for the next: nothing is read ahead of it beyond the task's inbound limit.
    ///
    /// The sequence ends at the end of the stream, and throws what a read throws (after which
    /// it ends). Each message's read has `timeout` (0, the default, waits for ever).
    public func messages<Framer: MessageFramer>(
        framedBy framer: Framer,
        timeout: TimeInterval = 0
    ) -> StreamTaskMessages<Framer> {
        StreamTaskMessages(task: self, framer: framer, timeout: timeout)
    }
}

extension MessageFramer {
    /// The framer's rule, as a task's state machine asks it.
    var scan: FrameScan {
        FrameScan(maxLength: maximumFrameLength) { [self] bytes in try frameLength(in: bytes) }
    }

    /// The message a frame read brought: the frame's, or at the end of the stream, `nil` when
    /// nothing was left, and what the framer makes of what was (a whole frame only if the
    /// framer says so of it).
    func messageOfRead(_ bytes: ByteBuffer, atEOF: Bool) throws -> Message? {
        if atEOF {
            if bytes.readableBytes == 0 { return nil }
            guard (try? frameLength(in: bytes)) == bytes.readableBytes else { return try messageAtEnd(bytes) }
        }
        return try messageOfFrame(bytes)
    }

    /// The message of a whole frame; a framer's error says the message could not be made.
    func messageOfFrame(_ frame: ByteBuffer) throws -> Message {
        do {
            return try message(fromFrame: frame)
        } catch let error as StreamTaskError {
            throw error
        } catch {
            throw StreamTaskError(
                .invalidMessage, "a frame of \(frame.readableBytes) bytes made no message: \(error)", underlying: error)
        }
    }
}
