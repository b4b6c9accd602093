//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// The received bytes' queue: order kept across its buffers, no copy for a read within the first
/// buffer, and memory held close to the bytes queued whatever sizes arrive.
@Suite struct ByteQueueTests {
    /// A buffer filled to its capacity with `count` bytes of `byte`, as a full channel read is.
    private func full(_ count: Int, _ byte: UInt8) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeRepeatingByte(byte, count: buffer.capacity - buffer.writerIndex)
        return buffer
    }

    @Test func aReadWithinTheFirstBufferIsASliceOfItNotACopy() {
        var queue = ByteQueue()
        let first = full(4096, 0x61)
        queue.enqueue(first)
        queue.enqueue(full(4096, 0x62))
        let taken = queue.dequeue(first.readableBytes)
        let sameStorage = taken.withUnsafeReadableBytes { taken in
            first.withUnsafeReadableBytes { first in taken.baseAddress == first.baseAddress }
        }
        #expect(sameStorage, "the first buffer's bytes were copied")
        #expect(queue.readableBytes == 4096)
    }

    @Test func aReadAcrossBuffersJoinsThemInOrder() {
        var queue = ByteQueue()
        queue.enqueue(ByteBuffer(string: "hello "))
        queue.enqueue(full(2048, 0x78))
        queue.enqueue(ByteBuffer(string: "world"))
        let head = queue.dequeue(3)
        #expect(String(buffer: head) == "hel")
        let middle = queue.dequeue(3 + 2048)
        #expect(String(buffer: middle) == "lo " + String(repeating: "x", count: 2048))
        let rest = queue.takeAll()
        #expect(rest.map { String(buffer: $0) } == "world")
        #expect(queue.isEmpty)
        #expect(queue.takeAll() == nil)
    }

    @Test func aDelimiterSplitBetweenBuffersIsFound() {
        var queue = ByteQueue()
        queue.enqueue(full(1024, 0x61))
        queue.enqueue(ByteBuffer(string: "\r"))
        queue.enqueue(full(1024, 0x0A))
        let end = queue.endOfFirst(Array("\r\n".utf8), within: 4096)
        #expect(end == 1026)
        let endWithinLimit = queue.endOfFirst(Array("\r\n".utf8), within: 1025)
        #expect(endWithinLimit == nil, "it ends past the limit")
        #expect(queue.readableBytes == 2049)
    }

    @Test func bytesPutBackInFrontComeFirst() {
        var queue = ByteQueue(ByteBuffer(string: "later"))
        queue.requeueInFront(ByteQueue(ByteBuffer(string: "first, ")))
        let all = queue.takeAll()
        #expect(all.map { String(buffer: $0) } == "first, later")
    }

    @Test func manyTinyArrivalsHoldAboutTheirOwnSizeNotABufferEach() {
        // One byte read into a 2 KiB allocation, 10,000 times: kept as they came, that would
        // hold 20 MB for 10 KB of bytes.
        var queue = ByteQueue()
        for index in 0..<10_000 {
            var read = ByteBufferAllocator().buffer(capacity: 2048)
            read.writeInteger(UInt8(truncatingIfNeeded: index))
            queue.enqueue(read)
        }
        #expect(queue.readableBytes == 10_000)
        #expect(queue.heldCapacity <= 2 * 10_000 + 2048, "held \(queue.heldCapacity) bytes for 10,000")
        let all = queue.takeAll()!
        let inOrder = (0..<10_000).allSatisfy {
            all.getInteger(at: all.readerIndex + $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0)
        }
        #expect(inOrder)
    }

    @Test func aTLSHelloSplitAfterItsFirstByteIsRecognised() {
        var queue = ByteQueue(ByteBuffer(bytes: [22]))
        queue.enqueue(ByteBuffer(bytes: [3, 1]))
        let hello = queue.startsLikeATLSHandshake()
        #expect(hello)
        var plain = ByteQueue(ByteBuffer(string: "EHLO"))
        let plainHello = plain.startsLikeATLSHandshake()
        #expect(!plainHello)
    }
}
