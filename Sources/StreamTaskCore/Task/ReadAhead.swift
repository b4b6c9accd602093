//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// The permission, kept in the task's state machine under the task's lock, for a read issued
/// off the event loop to take the machine's buffered bytes where it is called, without a trip
/// to the loop and back.
///
/// The loop opens the lending only while nothing else can claim the bytes first: no read,
/// `closeRead` or barrier (`startTLS`, `stopTLS`, `captureStreams`) is queued or on its way to
/// the loop, the connection is open, its input has not ended and the task is running. Any such
/// operation closes the lending as it is submitted, and the loop queues it in the machine once
/// it arrives. So reads still complete in the order they were issued and see the bytes in the
/// order they came: a read that takes bytes here is one that would have completed at once on
/// the loop, with the same bytes. The bytes never move: reads take them from the machine's
/// buffer, under the lock that the loop steps the machine under, so the input limit counts
/// them as it counts any buffered byte.
///
/// A read that finds nothing buffered waits here (parked) rather than going to the loop: the
/// loop completes it once the next burst of bytes has come in, or, when they fall short or
/// anything else happens first, queues it in the machine ahead of what comes next. So a
/// reader that keeps up with its peer costs the loop nothing until its bytes come. Its
/// timeout is one entry in the task's deadlines (see `OperationDeadlines`), moved on as it
/// fires.
struct ReadAhead: Sendable {
    /// What opening the lending did for the read parked.
    enum LendOutcome {
        /// No read was parked, or nothing is buffered for it yet.
        case nothingParked
        /// The bytes satisfied the read parked: complete it with them.
        case satisfied(OperationRequest, bytes: ByteBuffer)
        /// The bytes fell short of the read parked: the lending is closed, and the read goes to
        /// the machine's queue, which decides it as it decides any read.
        case fellShort(OperationRequest)
    }

    /// Whether reads off the loop may take buffered bytes.
    private(set) var isOpen = false
    /// Read-lane operations and barriers submitted that have not reached the loop yet.
    private var onTheirWay = 0
    /// Set by `cancel()` and never cleared: nothing is lent any more.
    private var stopped = false
    /// The read waiting for the next bytes, if any; only while the lending is open and the
    /// buffer is empty.
    private var parked: OperationRequest?
    /// When the loop's timer for parked reads fires, if it is armed (or being armed).
    private var parkTimerDeadline: NIODeadline?

    /// Whether a read is parked, waiting for the next bytes.
    var hasParkedRead: Bool { parked != nil }

    // MARK: From any thread

    /// A read-lane operation or barrier is on its way to the loop: no read takes bytes here
    /// until the loop has queued it. A read parked was issued before it: it is returned,
    /// counted as on its way too, to be sent to the loop first.
    mutating func operationSubmitted() -> OperationRequest? {
        isOpen = false
        onTheirWay += 1
        guard let read = parked else { return nil }
        parked = nil
        onTheirWay += 1
        return read
    }

    /// Parks `read` if the lending is open, `buffered` is 0 and no read is parked yet.
    /// `armTimerAt` is set when the loop's timer must be armed for it (it has a deadline and
    /// the timer fires later, or not at all).
    mutating func park(_ read: OperationRequest, buffered: Int) -> (parked: Bool, armTimerAt: NIODeadline?) {
        guard isOpen, parked == nil, buffered == 0, read.mayPark else { return (false, nil) }
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

    /// The task is being cancelled: no read takes bytes here from now on.
    mutating func stop() {
        isOpen = false
        stopped = true
    }

    /// Takes what `operation`, a read or delimited read, gets from `buffer`, if it satisfies it
    /// at once and the lending is open with no read parked; `nil` otherwise (and for any other
    /// operation). A read whose arguments the machine would refuse takes nothing: the machine
    /// refuses it.
    mutating func take(for operation: StreamTaskStateMachine.Operation, from buffer: inout ByteQueue) -> ByteBuffer? {
        guard isOpen, parked == nil else { return nil }
        return Self.satisfy(operation, from: &buffer)
    }

    /// What a read of `operation` takes from `buffer` at once, if anything satisfies it there.
    private static func satisfy(
        _ operation: StreamTaskStateMachine.Operation, from buffer: inout ByteQueue
    ) -> ByteBuffer? {
        guard operation.argumentError == nil else { return nil }
        let available = buffer.readableBytes
        switch operation {
        case .read(let minLength, let maxLength):
            guard available > 0, available >= minLength else { return nil }
            return buffer.dequeue(Swift.min(available, maxLength))
        case .readThrough(let delimiter, let maxLength):
            guard let end = buffer.endOfFirst(delimiter, within: Swift.min(available, maxLength)) else { return nil }
            return buffer.dequeue(end)
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
            return nil
        }
    }

    // MARK: From the loop

    /// Whether the loop may open the lending: nothing is on its way that could claim the bytes
    /// first.
    var mayLend: Bool { !stopped && onTheirWay == 0 }

    /// Opens the lending over `buffer`, and says what that did for the read parked.
    mutating func lend(_ buffer: inout ByteQueue) -> LendOutcome {
        precondition(mayLend, "lending opened while an operation was on its way to the loop")
        isOpen = true
        guard let read = parked, buffer.readableBytes > 0 else { return .nothingParked }
        parked = nil
        if let bytes = Self.satisfy(read.operation, from: &buffer) {
            return .satisfied(read, bytes: bytes)
        }
        isOpen = false
        return .fellShort(read)
    }

    /// Closes the lending and gives back the read parked, which the loop queues before anything
    /// else. `arriving` says a submitted operation reached the loop.
    mutating func close(arriving: Bool) -> OperationRequest? {
        if arriving { onTheirWay -= 1 }
        isOpen = false
        defer { parked = nil }
        return parked
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
