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

/// Type-length-value messages: a type of 1 to 4 bytes, then the value's length (1, 2, 4 or 8
/// bytes), then the value, the integers in one byte order.
///
/// A length over ``maximumValueLength`` fails the read with
/// `StreamTaskError.Code.invalidFrame` as soon as the header is read.
public struct TypeLengthValueFramer: MessageFramer {
    /// One message: its type and its value.
    public struct Message: Sendable, Hashable {
        public var type: UInt32
        public var value: ByteBuffer

        public init(type: UInt32, value: ByteBuffer) {
            self.type = type
            self.value = value
        }
    }

    public let type: FramingInteger
    public let length: FramingInteger
    /// The longest value, its header not counted.
    public let maximumValueLength: Int

    /// A framer of types `typeWidth` bytes wide (1 to 4) and lengths `lengthWidth` bytes wide
    /// (1, 2, 4 or 8), both in `byteOrder`.
    public init(
        typeWidth: Int = 2, lengthWidth: Int = 4, byteOrder: Endianness = .big, maximumValueLength: Int = 1 << 20
    ) {
        precondition((1...4).contains(typeWidth), "a type is 1 to 4 bytes wide (got \(typeWidth))")
        precondition([1, 2, 4, 8].contains(lengthWidth), "a length is 1, 2, 4 or 8 bytes wide (got \(lengthWidth))")
        precondition(maximumValueLength >= 0, "a value's maximum length must not be negative")
        type = FramingInteger(width: typeWidth, byteOrder: byteOrder)
        length = FramingInteger(width: lengthWidth, byteOrder: byteOrder)
        self.maximumValueLength = Swift.min(maximumValueLength, length.largestValue(lessBy: 0))
    }

    private var headerLength: Int { type.width + length.width }

    public var maximumFrameLength: Int { headerLength + maximumValueLength }

    public func frameLength(in bytes: ByteBuffer) throws -> Int? {
        guard let declared = length.read(from: bytes, at: bytes.readerIndex + type.width) else { return nil }
        guard declared <= UInt64(maximumValueLength) else {
            throw StreamTaskError.invalidFrame(
                "a message announces a value of \(declared) bytes, over the maximum of \(maximumValueLength); nothing of it was read"
            )
        }
        return headerLength + Int(declared)
    }

    public func message(fromFrame frame: ByteBuffer) throws -> Message {
        let kind = type.read(from: frame, at: frame.readerIndex)!
        let value = frame.getSlice(at: frame.readerIndex + headerLength, length: frame.readableBytes - headerLength)!
        return Message(type: UInt32(kind), value: value)
    }

    public func frame(_ message: Message, into buffer: inout ByteBuffer) throws {
        let count = message.value.readableBytes
        guard count <= maximumValueLength else {
            throw StreamTaskError.invalidArgument(
                "a value of \(count) bytes is longer than the maximum of \(maximumValueLength)")
        }
        guard UInt64(message.type) <= UInt64(type.largestValue(lessBy: 0)) else {
            throw StreamTaskError.invalidArgument("type \(message.type) does not fit in \(type.width) bytes")
        }
        type.write(UInt64(message.type), to: &buffer)
        length.write(UInt64(count), to: &buffer)
        buffer.writeImmutableBuffer(message.value)
    }
}
