//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Where a session runs its delegate callbacks and completion handlers, one at a time and in
/// order: its own serial dispatch queue (wrapped in the `OperationQueue` it reports as its
/// delegate queue), or the operation queue it was given.
package struct CallbackQueue: Sendable {
    private enum Target: @unchecked Sendable {
        // @unchecked: OperationQueue is thread-safe, but not marked Sendable on every platform.
        case dispatch(DispatchQueue)
        case operations(OperationQueue)
    }

    private let target: Target
    /// The queue the session reports as its `delegateQueue`.
    let operationQueue: OperationQueue

    /// A new serial queue of the session's own.
    init(label: String) {
        let queue = DispatchQueue(label: label)
        self.init(dispatchQueue: queue)
    }

    /// Callbacks go straight to `dispatchQueue`, which must be serial; the operation queue
    /// reported wraps it.
    init(dispatchQueue: DispatchQueue) {
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        operations.underlyingQueue = dispatchQueue
        self.target = .dispatch(dispatchQueue)
        self.operationQueue = operations
    }

    /// Callbacks are added to `operationQueue` as operations, as Apple's session does.
    init(operationQueue: OperationQueue) {
        self.target = .operations(operationQueue)
        self.operationQueue = operationQueue
    }

    /// Runs `work` on the queue, after everything queued before it.
    package func async(_ work: @escaping @Sendable () -> Void) {
        switch target {
        case .dispatch(let queue): queue.async(execute: work)
        case .operations(let queue): queue.addOperation(work)
        }
    }
}
