//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// An operation as it was submitted: everything the loop needs to queue it in the machine.
///
/// A read issued off the loop that finds the lending open and empty waits in it as one of
/// these (see `ReadAhead`) instead of going to the loop: when the bytes the loop lends next
/// satisfy it, the loop completes it there and then, under the task's lock; in any other case
/// (the bytes fall short, the input ends, another read-lane operation or barrier is submitted,
/// the task closes) it joins the machine's queue as if it had just arrived, ahead of whatever
/// comes next.
struct OperationRequest: Sendable {
    let operation: StreamTaskStateMachine.Operation
    let id: OperationID
    /// Seconds the caller gave it; 0 for none.
    let timeout: TimeInterval
    /// When it was issued: its timeout counts from here.
    let startedAt: NIODeadline
    /// Set when the caller stopped waiting, for callers with a flag of their own (a write
    /// that waited for room, the captured streams' reads).
    let abandoned: NIOLockedValueBox<Bool>?
    /// Whether the cancellation of the Swift task that submits it withdraws it: an async
    /// caller's (see `StreamTask.awaitOperation`). Such a caller's withdrawal is made under the
    /// task's lock once its Swift task is marked cancelled, so an operation found cancelled
    /// under the lock as it is submitted is withdrawn, and one not found so is ahead of it.
    var cancelledWithCaller = false
    /// Issued by the streams the connection was handed over to, not by the task.
    var fromStreams = false
    /// The empty write that `cancel()` issues to let writes that returned early go out first:
    /// the one operation a cancelling task still takes (see `refusal(in:)`).
    var outlivesCancel = false
    /// A write whose caller returned before its bytes left (one the write ledger let go): it
    /// can no longer be withdrawn, so if its time runs out before the channel takes it, the
    /// connection closes, as it does when its time runs out after.
    var returnedEarly = false
    let completion: OperationCompletion

    /// When it times out; `nil` without a timeout.
    var deadline: NIODeadline? { timeout > 0 ? startedAt + .seconds(timeout) : nil }

    /// Whether it may wait in the lending: a read or delimited read whose arguments the machine
    /// would accept (it decides any other, with its own error), not abandoned already.
    var mayPark: Bool {
        switch operation {
        case .read, .readThrough: guard operation.argumentError == nil else { return false }
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams: return false
        }
        return !isWithdrawn
    }

    /// Why the task refuses it as it is submitted, under the task's lock, if it does: its
    /// caller stopped waiting already, or it was issued after `cancel()` (as on Darwin, the
    /// task is cancelling from the moment `cancel()` returns, and takes nothing new).
    func refusal(in state: StreamSessionTask.State) -> StreamTaskError? {
        if isWithdrawn { return StreamTaskDriver.abandonedError }
        if state == .canceling && !fromStreams && !outlivesCancel { return .cancelled }
        return nil
    }

    /// Whether its caller stopped waiting already. Read under the task's lock, in the Swift
    /// task that submits it.
    var isWithdrawn: Bool {
        if cancelledWithCaller && Task.isCancelled { return true }
        return abandoned?.withLockedValue({ $0 }) == true
    }
}
