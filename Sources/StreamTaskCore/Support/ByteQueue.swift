//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Bytes received in order and taken from the front: what a task's state machine and its
/// read-ahead hold.
///
/// The channel's buffers are kept as they came rather than copied into one, so a read that
/// takes no more than the first of them gets a slice of it, as `NIOAsyncChannel` hands each
/// buffer on. Bytes are copied only to join buffers: for a read that spans two of them, a
/// delimiter search over more than one, or a buffer mostly empty space (a read of a few bytes
/// into a large allocation), whose bytes join the last one kept so that the memory held stays
/// within about twice the bytes queued, whatever sizes a peer sends in.
struct ByteQueue: Sendable {
    /// The buffers, oldest first; none of them empty.
    private var chunks = CircularBuffer<ByteBuffer>(initialCapacity: 4)
    /// Bytes queued, over all the buffers.
    private(set) var readableBytes = 0

    /// An empty queue.
    init() {}

    /// A queue of `bytes` (empty if `nil` or empty).
    init(_ bytes: ByteBuffer?) {
        if let bytes { enqueue(bytes) }
    }

    /// The capacity of the buffers held: the memory the queue keeps, at least its bytes.
    var heldCapacity: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// Whether no bytes are queued.
    var isEmpty: Bool { readableBytes == 0 }

    /// A buffer that holds at most this share of waste is kept as it came.
    private static func isMostlyBytes(_ bytes: ByteBuffer) -> Bool {
        bytes.readableBytes * 2 >= bytes.capacity
    }

    /// The smallest buffer made to gather small arrivals in.
    private static let gatheringCapacity = 1024

    /// Adds `bytes` behind what is queued: as they are when they mostly fill their buffer,
    /// copied into the last buffer (or a fresh one sized for them) otherwise.
    mutating func enqueue(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        readableBytes += bytes.readableBytes
        if chunks.isEmpty || Self.isMostlyBytes(bytes) {
            chunks.append(bytes)
            return
        }
        var last = chunks.removeLast()
        var more = bytes
        if last.writableBytes >= more.readableBytes {
            last.writeBuffer(&more)  // in place: `last` is the only reference the queue has
            chunks.append(last)
        } else {
            chunks.append(last)
            var gathered = ByteBufferAllocator().buffer(capacity: Swift.max(more.readableBytes, Self.gatheringCapacity))
            gathered.writeBuffer(&more)
            chunks.append(gathered)
        }
    }

    /// Adds every byte of `other` behind what is queued, its buffers as they are (they were
    /// kept or gathered as they came).
    mutating func enqueue(contentsOf other: ByteQueue) {
        if isEmpty {
            self = other
            return
        }
        readableBytes += other.readableBytes
        chunks.append(contentsOf: other.chunks)
    }

    /// Puts the bytes of `front` ahead of what is queued.
    mutating func requeueInFront(_ front: ByteQueue) {
        guard !front.isEmpty else { return }
        var joined = front
        joined.enqueue(contentsOf: self)
        self = joined
    }

    /// Takes `count` bytes off the front (which must be there): a slice of the first buffer
    /// when it holds them, a copy joining buffers otherwise.
    mutating func dequeue(_ count: Int) -> ByteBuffer {
        guard count > 0 else { return ByteBuffer() }
        precondition(count <= readableBytes, "took more bytes than are queued")
        readableBytes -= count
        if chunks[chunks.startIndex].readableBytes >= count {
            return takeFromFirst(count)
        }
        var joined = ByteBufferAllocator().buffer(capacity: count)
        var remaining = count
        while remaining > 0 {
            var part = takeFromFirst(Swift.min(remaining, chunks[chunks.startIndex].readableBytes))
            remaining -= part.readableBytes
            joined.writeBuffer(&part)
        }
        return joined
    }

    /// `count` bytes off the first buffer, which holds them; the buffer goes once empty.
    private mutating func takeFromFirst(_ count: Int) -> ByteBuffer {
        var first = chunks.removeFirst()
        let taken = first.readSlice(length: count)!
        if first.readableBytes > 0 { chunks.prepend(first) }
        return taken
    }

    /// Takes every byte queued, joined into one buffer (without a copy when they are in one
    /// already); `nil` when none are.
    mutating func takeAll() -> ByteBuffer? {
        guard !isEmpty else { return nil }
        return dequeue(readableBytes)
    }

    /// Drops every byte queued.
    mutating func removeAll() {
        chunks.removeAll(keepingCapacity: true)
        readableBytes = 0
    }

    /// Where the first `delimiter` ends (the count of bytes through it), if it ends within
    /// the first `limit` bytes. The buffers are joined first when there are several, so a
    /// delimiter split between two is found; later searches then find one buffer.
    mutating func endOfFirst(_ delimiter: [UInt8], within limit: Int) -> Int? {
        guard !isEmpty else { return nil }
        if chunks.count > 1 { coalesce() }
        return chunks[chunks.startIndex].endOfFirst(delimiter, within: limit)
    }

    /// Whether the bytes queued begin like a TLS handshake record (see
    /// `ByteBuffer.startsLikeATLSHandshake`).
    mutating func startsLikeATLSHandshake() -> Bool {
        guard !isEmpty else { return false }
        if chunks[chunks.startIndex].readableBytes < 2 { coalesce() }
        return chunks[chunks.startIndex].startsLikeATLSHandshake
    }

    /// Joins every buffer into one.
    private mutating func coalesce() {
        let count = readableBytes
        let joined = dequeue(count)
        readableBytes = count
        chunks.append(joined)
    }
}
