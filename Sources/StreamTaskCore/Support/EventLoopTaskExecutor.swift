//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// A task executor that runs every job on one event loop, so that Swift code and the channel
/// it drives share a thread.
///
/// A task's operations start on its event loop and complete there. Code that waits for them
/// from Swift's cooperative pool crosses threads twice per operation (onto the loop, and back
/// to the pool for the continuation); code that runs on the loop crosses none. The flushes
/// that the code's writes held go out as each job returns (see ``HeldFlushes``).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            HeldFlushes.runningJob {
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }
}
