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

/// Messages that end with a delimiter, any sequence of bytes (a NUL, `"\r\n.\r\n"`, …): each
/// message is the bytes before it, without it.
///
/// A message longer than ``maximumMessageLength`` fails the read with
/// `StreamTaskError.Code.invalidFrame`, and the bytes stay buffered.
public struct DelimiterFramer: MessageFramer {
    public typealias Message = ByteBuffer

    public let delimiter: [UInt8]
    /// The longest message, its delimiter not counted.
    public let maximumMessageLength: Int

    public init(delimiter: some Sequence<UInt8>, maximumMessageLength: Int = 1 << 20) {
        let delimiter = Array(delimiter)
        precondition(!delimiter.isEmpty, "a delimiter has at least one byte")
        precondition(maximumMessageLength >= 0, "a message's maximum length must not be negative")
        self.delimiter = delimiter
        self.maximumMessageLength = maximumMessageLength
    }

    public var maximumFrameLength: Int { maximumMessageLength + delimiter.count }

    public func frameLength(in bytes: ByteBuffer) throws -> Int? {
        let view = bytes.readableBytesView
        let searched = view.prefix(maximumFrameLength)
        guard let end = searched.firstRange(of: delimiter)?.upperBound else { return nil }
        return end - view.startIndex
    }

    public func message(fromFrame frame: ByteBuffer) throws -> ByteBuffer {
        frame.getSlice(at: frame.readerIndex, length: frame.readableBytes - delimiter.count)!
    }

    public func frame(_ message: ByteBuffer, into buffer: inout ByteBuffer) throws {
        guard message.readableBytes <= maximumMessageLength else {
            throw StreamTaskError.invalidArgument(
                "a message of \(message.readableBytes) bytes is longer than the maximum of \(maximumMessageLength)")
        }
        let start = buffer.writerIndex
        buffer.writeImmutableBuffer(message)
        buffer.writeBytes(delimiter)
        // The frame must end at its own delimiter, not at one the message holds, or makes with
        // the delimiter's first bytes.
        let written = buffer.getSlice(at: start, length: buffer.writerIndex - start)!
        guard try frameLength(in: written) == written.readableBytes else {
            buffer.moveWriterIndex(to: start)
            throw StreamTaskError.invalidArgument("a message to send holds its delimiter, which would end it early")
        }
    }
}
