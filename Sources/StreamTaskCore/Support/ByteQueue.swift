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
    /// The oldest buffer, `nil` when none is queued; held apart from the others so that the
    /// usual queue of one buffer allocates nothing of its own.
    private var first: ByteBuffer?
    /// The buffers behind `first`, oldest first; made when a second one comes.
    private var rest: CircularBuffer<ByteBuffer>?
    /// Bytes queued, over all the buffers (none of which is empty).
    private(set) var readableBytes = 0

    /// An empty queue.
    init() {}

    /// A queue of `bytes` (empty if `nil` or empty).
    init(_ bytes: ByteBuffer?) {
        if let bytes { enqueue(bytes) }
    }

    /// The capacity of the buffers held: the memory the queue keeps, at least its bytes.
    var heldCapacity: Int { (first?.capacity ?? 0) + (rest?.reduce(0) { $0 + $1.capacity } ?? 0) }

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
        if first == nil || Self.isMostlyBytes(bytes) {
            append(bytes)
            return
        }
        var more = bytes
        let joinedLast = modifyLast { last in
            guard last.writableBytes >= more.readableBytes else { return false }
            last.writeBuffer(&more)
            return true
        }
        if !joinedLast {
            var gathered = ByteBufferAllocator().buffer(capacity: Swift.max(more.readableBytes, Self.gatheringCapacity))
            gathered.writeBuffer(&more)
            append(gathered)
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
        if let otherFirst = other.first { append(otherFirst) }
        if let otherRest = other.rest {
            for chunk in otherRest { append(chunk) }
        }
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
        if first!.readableBytes >= count {
            return takeFromFirst(count)
        }
        var joined = ByteBufferAllocator().buffer(capacity: count)
        var remaining = count
        while remaining > 0 {
            var part = takeFromFirst(Swift.min(remaining, first!.readableBytes))
            remaining -= part.readableBytes
            joined.writeBuffer(&part)
        }
        return joined
    }

    /// `count` bytes off the first buffer, which holds them; the buffer goes once empty.
    private mutating func takeFromFirst(_ count: Int) -> ByteBuffer {
        var front = first!
        first = nil  // so that `front` holds the only reference the queue has
        let taken = front.readSlice(length: count)!
        if front.readableBytes > 0 {
            first = front
        } else {
            first = rest?.popFirst()
        }
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
        first = nil
        rest?.removeAll(keepingCapacity: true)
        readableBytes = 0
    }

    /// Where the first `delimiter` ends (the count of bytes through it), if it ends within
    /// the first `limit` bytes. The buffers are joined first when there are several, so a
    /// delimiter split between two is found; later searches then find one buffer.
    mutating func endOfFirst(_ delimiter: [UInt8], within limit: Int) -> Int? {
        guard !isEmpty else { return nil }
        if let rest, !rest.isEmpty { coalesce() }
        return first!.endOfFirst(delimiter, within: limit)
    }

    /// Whether the bytes queued begin like a TLS handshake record (see
    /// `ByteBuffer.startsLikeATLSHandshake`).
    mutating func startsLikeATLSHandshake() -> Bool {
        guard !isEmpty else { return false }
        if first!.readableBytes < 2 { coalesce() }
        return first!.startsLikeATLSHandshake
    }

    /// Every byte queued, in one buffer (the buffers are joined first when there are several),
    /// to look at without taking anything; `nil` when none are queued.
    mutating func contiguousView() -> ByteBuffer? {
        guard !isEmpty else { return nil }
        if let rest, !rest.isEmpty { coalesce() }
        return first
    }

    /// Joins every buffer into the first. The first grows as SwiftNIO's buffers grow (its
    /// capacity doubling), so that bytes arriving in many reads while a long frame or line is
    /// looked for are copied a bounded number of times in all, not once for each arrival.
    private mutating func coalesce() {
        guard var joined = first, var others = rest, !others.isEmpty else { return }
        first = nil  // so that `joined` holds the only reference the queue has
        rest = nil
        while var chunk = others.popFirst() {
            joined.writeBuffer(&chunk)
        }
        first = joined
        rest = others
    }

    // MARK: The buffers

    /// Puts `chunk` (not empty) behind the others; counting its bytes is the caller's.
    private mutating func append(_ chunk: ByteBuffer) {
        guard first != nil else {
            first = chunk
            return
        }
        if rest == nil { rest = CircularBuffer(initialCapacity: 4) }
        rest!.append(chunk)
    }

    /// Runs `body` on the newest buffer in place (the queue holding no other reference to it
    /// meanwhile, so that it grows without a copy); returns what `body` did.
    private mutating func modifyLast(_ body: (inout ByteBuffer) -> Bool) -> Bool {
        if var others = rest, !others.isEmpty {
            rest = nil
            var last = others.removeLast()
            let result = body(&last)
            others.append(last)
            rest = others
            return result
        }
        var last = first!
        first = nil
        let result = body(&last)
        first = last
        return result
    }
}
