//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTask {
    /// The bytes of a read that the bytes lent by the event loop satisfy at once, taken on the
    /// caller's thread; `nil` when the read must go to the loop (see `ReadAhead`). Such a read
    /// would have completed at once on the loop with the same bytes, and not at the end of the
    /// stream: lending stops before the input ends.
    func readFromLentBytes(_ operation: StreamTaskStateMachine.Operation) -> ByteBuffer? {
        let taken = withShared { shared -> (bytes: ByteBuffer, resumesInput: Bool)? in
            guard shared.state == .running, shared.readAhead.isOpen else { return nil }
            return shared.readAhead.take(for: operation)
        }
        guard let taken else { return nil }
        if taken.resumesInput { driver.readAheadDrained() }
        return taken.bytes
    }

    /// Queues a read-lane operation or barrier: parks a read that finds the lending open and
    /// empty (see `OperationRequest`), or else closes the lending and sends the operation to
    /// the loop, after the read parked before it, if any.
    func submitClaimingInput(_ request: OperationRequest) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        let (parked, armTimerAt, parkedBefore) = withShared {
            shared -> (Bool, NIODeadline?, OperationRequest?) in
            if !request.fromStreams, shared.state == .running {
                let (parked, armTimerAt) = shared.readAhead.park(request)
                if parked { return (true, armTimerAt, nil) }
            }
            let before = shared.readAhead.operationSubmitted()
            // Off the loop the read parked joins the inbox while the lock is held, and this one
            // behind it, so that no operation submitted after this one reaches the loop ahead
            // of them. On the loop they cannot go to the machine here (that would take the lock
            // again); nothing else reaches the loop before this caller is done.
            guard !onLoop else { return (false, nil, before) }
            if let before { followUp.note(shared.inbox.join(before), for: before) }
            followUp.note(shared.inbox.join(request), for: request)
            return (false, nil, nil)
        }
        if let armTimerAt { driver.armParkTimer(at: armTimerAt) }
        if parked { return }
        guard onLoop else { return follow(followUp) }
        if let parkedBefore { deliver(parkedBefore) }
        deliver(request)
    }

    /// The caller of a read stopped waiting: if the read is parked, it fails now; otherwise the
    /// loop withdraws it from wherever it is.
    func abandon(_ id: OperationID) {
        if let read = withShared({ $0.readAhead.unpark(id) }) {
            read.completion(.failure(StreamTaskDriver.abandonedError))
        } else {
            driver.abandon(id)
        }
    }
}
