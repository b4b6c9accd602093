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

/// Messages after a length: an unsigned integer of 1, 2, 4 or 8 bytes, in either byte order,
/// counting the message's bytes (or, with ``prefixCountsItself``, the prefix's too), then the
/// message.
///
/// A length over ``maximumMessageLength`` fails the read with
/// `StreamTaskError.Code.invalidFrame` as soon as the prefix is read, before
/// any of the message is: a prefix of 2^63 costs the reader nothing.
public struct LengthPrefixedFramer: MessageFramer {
    public typealias Message = ByteBuffer

    public let prefix: FramingInteger
    /// Whether the length counts the prefix's own bytes too.
    public let prefixCountsItself: Bool
    /// The longest message, its prefix not counted.
    public let maximumMessageLength: Int

    public init(prefix: FramingInteger = .init(), prefixCountsItself: Bool = false, maximumMessageLength: Int = 1 << 20)
    {
        precondition(maximumMessageLength >= 0, "a message's maximum length must not be negative")
        self.prefix = prefix
        self.prefixCountsItself = prefixCountsItself
        self.maximumMessageLength = Swift.min(
            maximumMessageLength, prefix.largestValue(lessBy: prefixCountsItself ? prefix.width : 0))
    }

    public var maximumFrameLength: Int { prefix.width + maximumMessageLength }

    public func frameLength(in bytes: ByteBuffer) throws -> Int? {
        guard let value = prefix.read(from: bytes, at: bytes.readerIndex) else { return nil }
        let length = try messageLength(declared: value)
        return prefix.width + length
    }

    public func message(fromFrame frame: ByteBuffer) throws -> ByteBuffer {
        frame.getSlice(at: frame.readerIndex + prefix.width, length: frame.readableBytes - prefix.width)!
    }

    public func frame(_ message: ByteBuffer, into buffer: inout ByteBuffer) throws {
        let length = message.readableBytes
        guard length <= maximumMessageLength else {
            throw StreamTaskError.invalidArgument(
                "a message of \(length) bytes is longer than the maximum of \(maximumMessageLength)")
        }
        prefix.write(UInt64(length + (prefixCountsItself ? prefix.width : 0)), to: &buffer)
        buffer.writeImmutableBuffer(message)
    }

    /// The message's length that a prefix of `value` declares, checked against the maximum.
    private func messageLength(declared value: UInt64) throws -> Int {
        let own = UInt64(prefixCountsItself ? prefix.width : 0)
        guard value >= own else {
            throw StreamTaskError.invalidFrame(
                "a length prefix of \(value) is shorter than the prefix itself (\(own) bytes), which it counts")
        }
        let length = value - own
        guard length <= UInt64(maximumMessageLength) else {
            throw StreamTaskError.invalidFrame(
                "a length prefix announces \(length) bytes, over the maximum of \(maximumMessageLength); nothing of the message was read"
            )
        }
        return Int(length)
    }
}

/// An unsigned integer in a frame's header: its width (1, 2, 4 or 8 bytes) and byte order.
public struct FramingInteger: Sendable, Hashable {
    /// How many bytes the integer takes: 1, 2, 4 or 8 (for a type field, 3 as well).
    public let width: Int
    public let byteOrder: Endianness

    /// An integer `width` bytes wide in `byteOrder` (network order, big-endian, by default).
    public init(width: Int = 4, byteOrder: Endianness = .big) {
        precondition((1...8).contains(width), "a framing integer is 1 to 8 bytes wide (got \(width))")
        self.width = width
        self.byteOrder = byteOrder
    }

    /// The integer at `index` in `bytes`, or `nil` while not all of it is there.
    func read(from bytes: ByteBuffer, at index: Int) -> UInt64? {
        switch width {
        case 1: return bytes.getInteger(at: index, as: UInt8.self).map(UInt64.init)
        case 2: return bytes.getInteger(at: index, endianness: byteOrder, as: UInt16.self).map(UInt64.init)
        case 4: return bytes.getInteger(at: index, endianness: byteOrder, as: UInt32.self).map(UInt64.init)
        case 8: return bytes.getInteger(at: index, endianness: byteOrder, as: UInt64.self)
        default:
            guard index + width <= bytes.writerIndex else { return nil }
            var value: UInt64 = 0
            for position in 0..<width {
                let at = byteOrder == .big ? index + position : index + width - 1 - position
                value = value << 8 | UInt64(bytes.getInteger(at: at, as: UInt8.self)!)
            }
            return value
        }
    }

    /// Writes `value`, which fits, at the end of `buffer`.
    func write(_ value: UInt64, to buffer: inout ByteBuffer) {
        for position in 0..<width {
            let shift = byteOrder == .big ? (width - 1 - position) * 8 : position * 8
            buffer.writeInteger(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// The largest value the integer holds, less `reserved`, as an `Int`.
    func largestValue(lessBy reserved: Int) -> Int {
        let largest: UInt64 = width == 8 ? .max : (1 << UInt64(width * 8)) - 1
        return Int(Swift.min(largest - UInt64(reserved), UInt64(Int.max - 16)))
    }
}
