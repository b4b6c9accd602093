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
/// A read that finds nothing lent waits here (parked) rather than going to the loop:
/// the loop completes it as it lends the next bytes, or, when they fall short or anything else
/// happens first, queues it in the machine ahead of what comes next. So a reader that keeps up
/// with its peer costs the loop nothing until its bytes come. Its timeout is one timer on the
/// loop for the task, armed for the earliest deadline parked and moved on as it fires.
///
/// Lent bytes count towards the input limit as buffered ones do. When they fill it the loop
/// holds back input (``inputHeld``); the read that takes the buffer below the limit tells the
/// loop to ask for more.
struct ReadAhead: Sendable {
    /// What lending more bytes did for the read parked.
    enum LendOutcome {
        /// No read was parked.
        case nothingParked
        /// The bytes satisfied the read parked: complete it with them; `resumesInput` as for
        /// ``take(for:)``.
        case satisfied(OperationRequest, bytes: ByteBuffer, resumesInput: Bool)
        /// The bytes fell short of the read parked: the lending is closed, and the read and
        /// every lent byte go to the machine, which decides it as it decides any read.
        case fellShort(OperationRequest, lent: ByteQueue)
    }

    /// The bytes lent, oldest first; `nil` when none are.
    private var bytes = ByteQueue()
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
    /// The read waiting for the next bytes lent, if any; only while the lending is open and
    /// holds no bytes.
    private var parked: OperationRequest?
    /// When the loop's timer for parked reads fires, if it is armed (or being armed).
    private var parkTimerDeadline: NIODeadline?

    /// Bytes lent and not taken yet.
    var count: Int { bytes.readableBytes }

    /// Whether a read is parked, waiting for the next bytes lent.
    var hasParkedRead: Bool { parked != nil }

    // MARK: From any thread

    /// A read-lane operation or barrier is on its way to the loop: no read takes lent bytes
    /// until the loop has taken them back and queued it. A read parked was issued before it:
    /// it is returned, counted as on its way too, to be sent to the loop first.
    mutating func operationSubmitted() -> OperationRequest? {
        isOpen = false
        onTheirWay += 1
        guard let read = parked else { return nil }
        parked = nil
        onTheirWay += 1
        return read
    }

    /// Parks `read` if the lending is open, holds no bytes and no read is parked yet.
    /// `armTimerAt` is set when the loop's timer must be armed for it (it has a deadline and
    /// the timer fires later, or not at all).
    mutating func park(_ read: OperationRequest) -> (parked: Bool, armTimerAt: NIODeadline?) {
        guard isOpen, parked == nil, count == 0, read.mayPark else { return (false, nil) }
        parked = read
        guard let deadline = read.deadline else { return (true, nil) }
        if let armed = parkTimerDeadline, armed <= deadline { return (true, nil) }
        parkTimerDeadline = deadline
        return (true, deadline)
    }

    /// Takes the read parked as `id` back, if it is still parked (its caller stopped waiting).
    mutating func unpark(_ id: OperationID) -> OperationRequest? {
        guard parked?.id == id else { return nil }
        defer { parked = nil }
        return parked
    }

    /// The task is being cancelled: no read takes lent bytes from now on.
    mutating func stop() {
        isOpen = false
        stopped = true
    }

    /// Takes what `operation`, a read or delimited read, gets from the lent bytes, if they
    /// satisfy it at once; `nil` otherwise (and for any other operation).
    /// A read whose arguments the machine would refuse takes nothing: the machine refuses it.
    mutating func take(for operation: StreamTaskStateMachine.Operation) -> (bytes: ByteBuffer, resumesInput: Bool)? {
        guard isOpen, parked == nil, operation.argumentError == nil else { return nil }
        return switch operation {
        case .read(let minLength, let maxLength): take(minLength: minLength, maxLength: maxLength)
        case .readThrough(let delimiter, let maxLength): take(through: delimiter, maxLength: maxLength)
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams: nil
        }
    }

    /// Takes what a read of at least `minLength` and at most `maxLength` bytes (arguments
    /// checked by ``take(for:)``) gets, if the lent bytes satisfy it at once; `nil` otherwise,
    /// and the read goes to the loop. `resumesInput` says the loop must be told to ask for
    /// input again.
    private mutating func take(minLength: Int, maxLength: Int) -> (bytes: ByteBuffer, resumesInput: Bool)? {
        let available = count
        guard available > 0, available >= minLength else { return nil }
        return takeFront(Swift.min(available, maxLength))
    }

    /// Takes the bytes through the first `delimiter`, if it ends within the first `maxLength`
    /// lent bytes (arguments checked by ``take(for:)``); `nil` otherwise, and the read goes to
    /// the loop.
    private mutating func take(through delimiter: [UInt8], maxLength: Int) -> (bytes: ByteBuffer, resumesInput: Bool)? {
        guard let end = bytes.endOfFirst(delimiter, within: Swift.min(count, maxLength)) else { return nil }
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

    /// Lends `more` (the loop's buffer) behind what is lent already, opens the lending, and
    /// says what that did for the read parked.
    mutating func lend(_ more: ByteQueue, limit: Int) -> LendOutcome {
        precondition(mayLend, "bytes lent while an operation was on its way to the loop")
        self.limit = limit
        isOpen = true
        bytes.enqueue(contentsOf: more)
        guard let read = parked, count > 0 else { return .nothingParked }
        parked = nil
        if let taken = take(for: read.operation) {
            return .satisfied(read, bytes: taken.bytes, resumesInput: taken.resumesInput)
        }
        return .fellShort(read, lent: reclaim(arriving: false).lent)
    }

    /// Whether the loop, about to ask for input, must hold it back instead: the lent bytes and
    /// the loop's own `buffered` ones fill the limit. Marks the input held if so.
    mutating func holdsInput(buffered: Int) -> Bool {
        guard count + buffered >= limit else { return false }
        inputHeld = true
        return true
    }

    /// Closes the lending and gives back what was not taken, and the read parked, which the
    /// loop queues before anything else. `arriving` says a submitted operation reached the loop.
    mutating func reclaim(arriving: Bool) -> (lent: ByteQueue, parked: OperationRequest?) {
        if arriving { onTheirWay -= 1 }
        isOpen = false
        inputHeld = false
        defer {
            bytes = ByteQueue()
            parked = nil
        }
        return (bytes, parked)
    }

    /// The loop's timer for parked reads fired at `now`: returns the read parked if its time is
    /// up, and when to fire next if a read parked later has a deadline still to come.
    mutating func parkTimerFired(now: NIODeadline) -> (expired: OperationRequest?, rearmAt: NIODeadline?) {
        parkTimerDeadline = nil
        guard let read = parked, let deadline = read.deadline else { return (nil, nil) }
        if deadline <= now {
            parked = nil
            return (read, nil)
        }
        parkTimerDeadline = deadline
        return (nil, deadline)
    }
}
