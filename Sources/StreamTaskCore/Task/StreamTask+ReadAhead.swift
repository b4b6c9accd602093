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
    /// The bytes of a read that the buffered bytes satisfy at once, taken on the caller's
    /// thread while the lending is open; `nil` when the read must go to the loop (see
    /// `ReadAhead`). Such a read
    /// would have completed at once on the loop with the same bytes, and not at the end of the
    /// stream: lending stops before the input ends.
    func readFromLentBytes(_ operation: StreamTaskStateMachine.Operation) -> ByteBuffer? {
        let taken = withShared { shared -> (bytes: ByteBuffer, asksForInput: Bool)? in
            guard shared.state == .running else { return nil }
            return shared.machine.readAtOnce(operation)
        }
        guard let taken else { return nil }
        if taken.asksForInput { driver.inputRoomMade() }
        return taken.bytes
    }

    /// Queues a read-lane operation or barrier: parks a read that finds the lending open and
    /// empty (see `OperationRequest`), or else closes the lending and sends the operation to
    /// the loop, after the read parked before it, if any.
    func submitClaimingInput(_ request: OperationRequest) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        var refusal: StreamTaskError?
        let decided = withShared { shared -> (parked: Bool, armTimerAt: NIODeadline?)? in
            // Under the lock a cancellation's withdrawal is made under (see `abandon(_:)`).
            refusal = request.refusal(in: shared.state)
            guard refusal == nil else { return nil }
            if !request.fromStreams, shared.state == .running {
                let (parked, armTimerAt) = shared.machine.readAhead.park(
                    request, buffered: shared.machine.bufferedByteCount)
                if parked { return (true, armTimerAt) }
            }
            // The read parked before this one goes first, then this one, both admitted while
            // the lock is held, so that nothing submitted or withdrawn after them reaches the
            // loop ahead of them.
            if let before = shared.machine.readAhead.operationSubmitted() {
                followUp.note(shared.inbox.admit(.operation(before), onLoop: onLoop), for: before)
            }
            followUp.note(shared.inbox.admit(.operation(request), onLoop: onLoop), for: request)
            return (false, nil)
        }
        guard let (parked, armTimerAt) = decided else {
            return request.completion(.failure((refusal ?? StreamTaskDriver.abandonedError).at(host: host, port: port)))
        }
        if let armTimerAt { driver.armParkTimer(at: armTimerAt) }
        if !parked { follow(followUp) }
    }

    /// The caller of an operation stopped waiting: if it is a read parked in the lending, it
    /// fails now; otherwise its withdrawal goes the way operations go (see `SubmissionInbox`),
    /// and the loop withdraws it from wherever it is.
    ///
    /// Made under the task's lock, after the caller's Swift task was marked cancelled: an
    /// operation submitted under the lock before this is ahead of its withdrawal, and one
    /// submitted after finds its caller cancelled and fails without going anywhere
    /// (`OperationRequest.isWithdrawn`).
    func abandon(_ id: OperationID) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        let parked = withShared { shared -> OperationRequest? in
            if let read = shared.machine.readAhead.unpark(id) { return read }
            followUp.note(shared.inbox.admit(.withdrawal(id), onLoop: onLoop), for: .withdrawal(id))
            return nil
        }
        if let parked { return parked.completion(.failure(StreamTaskDriver.abandonedError)) }
        follow(followUp)
    }
}
