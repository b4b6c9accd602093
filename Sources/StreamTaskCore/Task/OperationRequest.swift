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

/// An operation as it was submitted: everything the machine needs to queue it, under the
/// task's lock, wherever it was issued (see `StreamTaskDriver.admit`).
struct OperationRequest: Sendable {
    let operation: StreamTaskStateMachine.Operation
    let id: OperationID
    /// Seconds the caller gave it; 0 for none.
    let timeout: TimeInterval
    /// When it was issued: its timeout counts from here. `nil`: as it is queued, within the
    /// call (read only for a timed operation, so an untimed one never reads the clock).
    let startedAt: NIODeadline?
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
    /// the one operation a cancelling task still takes (see `refusal(canceling:)`).
    var outlivesCancel = false
    /// A write whose caller returned before its bytes left (one the write ledger let go): it
    /// can no longer be withdrawn, so if its time runs out before the channel takes it, the
    /// connection closes, as it does when its time runs out after.
    var returnedEarly = false
    let completion: OperationCompletion

    /// Why the task refuses it as it is submitted, under the task's lock, if it does: its
    /// caller stopped waiting already, or it was issued after `cancel()` (as on Darwin, the
    /// task is cancelling from the moment `cancel()` returns, and takes nothing new).
    func refusal(canceling: Bool) -> StreamTaskError? {
        if isWithdrawn { return StreamTaskDriver.abandonedError }
        if canceling && !fromStreams && !outlivesCancel { return .cancelled }
        return nil
    }

    /// Whether its caller stopped waiting already. Read under the task's lock, in the Swift
    /// task that submits it.
    var isWithdrawn: Bool {
        if cancelledWithCaller && Task.isCancelled { return true }
        return abandoned?.withLockedValue({ $0 }) == true
    }
}
