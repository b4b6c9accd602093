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
    /// thread under the task's lock; `nil` when the read must be queued (see
    /// `StreamTaskStateMachine.readAtOnce(_:)`). Such a read would have completed at once in
    /// the queue, with the same bytes, and not at the end of the stream: reads at the end are
    /// the machine's to decide.
    func readAtOnce(_ operation: StreamTaskStateMachine.Operation) -> ByteBuffer? {
        let taken = withShared { shared -> (bytes: ByteBuffer, asksForInput: Bool)? in
            shared.machine.readAtOnce(operation)
        }
        guard let taken else { return nil }
        if taken.asksForInput { inputRoomMade() }
        return taken.bytes
    }

    /// A read took bytes that made room for input nobody asks for: the machine asks for it.
    func inputRoomMade() {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        withShared { shared in
            followUp.notePass(onLoop: onLoop, in: &shared)
        }
        follow(followUp)
    }

    /// The caller of an operation stopped waiting: the machine withdraws it from wherever it
    /// is. A read or write still queued is taken out under the task's lock, where the caller
    /// is; one under way, or a change of the connection's course (a close, a TLS step, the
    /// capture), is withdrawn on the loop, in order, since that may close the connection.
    ///
    /// Made under the task's lock, after the caller's Swift task was marked cancelled: an
    /// operation submitted under the lock before this is in the machine already, and one
    /// submitted after finds its caller cancelled and fails without being queued
    /// (`OperationRequest.isWithdrawn`).
    func abandon(_ id: OperationID) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        let error = StreamTaskDriver.abandonedError
        withShared { shared in
            if onLoop {
                followUp.note(shared.machine.abandon(id, error: error), onLoop: onLoop, in: &shared)
            } else if let failure = shared.machine.withdrawQueued(id, error: error) {
                followUp.note(failure, onLoop: onLoop, in: &shared)
                followUp.notePass(onLoop: onLoop, in: &shared)
            } else {
                followUp.note(
                    control: { self.driver.step { $0.abandon(id, error: error) } }, onLoop: onLoop, in: &shared)
            }
        }
        follow(followUp)
    }
}
