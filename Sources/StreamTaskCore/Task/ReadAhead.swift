//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Received bytes that the event loop lent to reads, under the task's lock, so that a read the
/// buffer can satisfy completes where it is called, without a trip to the loop and back.
///
/// The loop lends its buffer only while nothing else can claim the bytes first: no read,
/// `closeRead` or barrier (`startTLS`, `stopTLS`, `captureStreams`) is queued or on its way to
/// the loop, the connection is open, its input has not ended and the task is running. Any such
/// operation closes the lending as it is submitted, and the loop takes the bytes back, in
/// front of what came since, before the operation joins the queue. So reads still complete in
/// the order they were issued and see the bytes in the order they came: a read that takes lent
/// bytes is one that would have completed at once on the loop, with the same bytes.
///
/// Lent bytes count towards the input limit as buffered ones do. When they fill it the loop
/// holds back input (``inputHeld``); the read that takes the buffer below the limit tells the
/// loop to ask for more.
struct ReadAhead: Sendable {
    /// The bytes lent, oldest first; `nil` when none are.
    private var bytes: ByteBuffer?
    /// Whether reads may take from ``bytes``.
    private(set) var isOpen = false
    /// Read-lane operations and barriers submitted that have not reached the loop yet.
    private var onTheirWay = 0
    /// Set by `cancel()` and never cleared: nothing is lent any more.
    private var stopped = false
    /// The loop stopped asking for input because the lent bytes fill the input limit.
    private var inputHeld = false
    /// The input limit (the session's `inboundBufferLimit`), as the loop last lent.
    private var limit = Int.max

    /// Bytes lent and not taken yet.
    var count: Int { bytes.queuedByteCount }

    // MARK: From any thread

    /// A read-lane operation or barrier is on its way to the loop: no read takes lent bytes
    /// until the loop has taken them back and queued it.
    mutating func operationSubmitted() {
        isOpen = false
        onTheirWay += 1
    }

    /// The task is being cancelled: no read takes lent bytes from now on.
    mutating func stop() {
        isOpen = false
        stopped = true
    }

    /// Takes what a read of at least `minLength` (at least one) and at most `maxLength` bytes
    /// gets, if the lent bytes satisfy it at once; `nil` otherwise, and the read goes to the
    /// loop. `resumesInput` says the loop must be told to ask for input again.
    mutating func take(minLength: Int, maxLength: Int) -> (bytes: ByteBuffer, resumesInput: Bool)? {
        guard isOpen, minLength >= 0, maxLength >= Swift.max(minLength, 1) else { return nil }
        let available = count
        guard available > 0, available >= minLength else { return nil }
        return takeFront(Swift.min(available, maxLength))
    }

    /// Takes the bytes through the first `delimiter`, if it ends within the first `maxLength`
    /// lent bytes; `nil` otherwise, and the read goes to the loop.
    mutating func take(through delimiter: [UInt8], maxLength: Int) -> (bytes: ByteBuffer, resumesInput: Bool)? {
        guard isOpen, !delimiter.isEmpty, maxLength >= delimiter.count,
            let end = bytes?.endOfFirst(delimiter, within: Swift.min(count, maxLength))
        else { return nil }
        return takeFront(end)
    }

    private mutating func takeFront(_ length: Int) -> (bytes: ByteBuffer, resumesInput: Bool) {
        let taken = bytes.dequeue(length)
        let resumesInput = inputHeld && count < limit
        if resumesInput { inputHeld = false }
        return (taken, resumesInput)
    }

    // MARK: From the loop

    /// Whether the loop may lend: nothing is on its way that could claim the bytes first.
    var mayLend: Bool { !stopped && onTheirWay == 0 }

    /// Lends `more` (the loop's buffer) behind what is lent already, and opens the lending.
    mutating func lend(_ more: ByteBuffer?, limit: Int) {
        precondition(mayLend, "bytes lent while an operation was on its way to the loop")
        self.limit = limit
        isOpen = true
        if let more { bytes.enqueue(more) }
    }

    /// Whether the loop, about to ask for input, must hold it back instead: the lent bytes and
    /// the loop's own `buffered` ones fill the limit. Marks the input held if so.
    mutating func holdsInput(buffered: Int) -> Bool {
        guard count + buffered >= limit else { return false }
        inputHeld = true
        return true
    }

    /// Closes the lending and gives back what was not taken. `arriving` says a submitted
    /// operation reached the loop.
    mutating func reclaim(arriving: Bool) -> ByteBuffer? {
        if arriving { onTheirWay -= 1 }
        isOpen = false
        inputHeld = false
        defer { bytes = nil }
        return bytes
    }
}
