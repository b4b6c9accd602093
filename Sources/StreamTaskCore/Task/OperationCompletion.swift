//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Where an operation's outcome goes once it is decided: called exactly once.
///
/// The common cases are cases of their own rather than closures: an async read or write waits
/// on a continuation, and a write that returned early only settles the task's write ledger.
/// A closure for them would be a heap allocation for every operation (and another where it is
/// stored among the driver's completions), which is much of what a small read or write costs.
enum OperationCompletion: Sendable {
    /// Any other caller: a completion handler, a promise, a wrapper.
    case handler(StreamTaskDriver.Completion)
    /// An async caller waiting for the outcome.
    case continuation(UnsafeContinuation<StreamTaskDriver.Outcome, any Error>)
    /// A write that returned early: its bytes leave `task`'s write ledger, and a failure is
    /// kept there for the next write to throw.
    case writeBehind(count: Int, of: StreamTask)
    /// SwiftNIO's form of write (`write(_:timeout:promise:)`): the caller's promise, if any.
    case promise(EventLoopPromise<Void>?)

    /// Whether nobody hears the outcome: a `write(_:timeout:promise:)` given no promise.
    var isSilent: Bool {
        if case .promise(nil) = self { return true }
        return false
    }

    /// Whether the outcome may come with that of a later write: nobody hears it, or only the
    /// write ledger does, which asks for it when a writer waits for room (see
    /// `StreamTaskStateMachine.roomAwaited`).
    var mayWaitForALaterWrite: Bool {
        switch self {
        case .promise(nil), .writeBehind: return true
        case .promise, .handler, .continuation: return false
        }
    }

    /// Reports `result`.
    func callAsFunction(_ result: Result<StreamTaskDriver.Outcome, StreamTaskError>) {
        switch self {
        case .handler(let handler):
            handler(result)
        case .continuation(let continuation):
            continuation.resume(with: result.mapError { $0 as any Error })
        case .writeBehind(let count, let task):
            let error: StreamTaskError? = if case .failure(let error) = result { error } else { nil }
            task.releaseRoomWaiters { $0.complete(count, error: error) }
        case .promise(let promise):
            switch result {
            case .success: promise?.succeed()
            case .failure(let error): promise?.fail(error)
            }
        }
    }
}
