//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers

/// Operations submitted from other threads on their way to the task's event loop, under a
/// lock: the first to arrive in an empty inbox schedules the one loop job that takes them all,
/// so writes issued while the loop is busy reach the channel together, with one flush (as
/// `NIOAsyncWriter` hands its channel every element yielded since the last hand-over).
final class SubmissionInbox: Sendable {
    private let requests = NIOLockedValueBox<[OperationRequest]>([])

    /// Adds `request`; returns whether the inbox was empty, so that the caller must schedule
    /// the job that takes it.
    func post(_ request: OperationRequest) -> Bool {
        requests.withLockedValue { requests in
            requests.append(request)
            return requests.count == 1
        }
    }

    /// Everything posted so far, in order, leaving the inbox empty.
    func takeAll() -> [OperationRequest] {
        requests.withLockedValue { requests in
            var taken: [OperationRequest] = []
            swap(&taken, &requests)
            return taken
        }
    }
}
