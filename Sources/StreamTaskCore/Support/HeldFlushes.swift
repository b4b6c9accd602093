//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOPosix

/// The flushes that Swift code running in an ``EventLoopTaskExecutor`` job held back, carried
/// out as the job returns: the code suspended (to wait for a reply, say) or finished.
///
/// Async code on a task's executor writes as it goes, and the writes it makes before it
/// suspends go out together, in one system call (see `StreamTaskDriver.flushSoon()`). The
/// flush waits in this list, one per event loop thread, instead of in a loop job of its own:
/// a round trip on the executor then costs the loop no job beyond the one that runs the code.
/// Code on any other executor (SwiftNIO's own, say) finds no job running here, and its flushes
/// wait in a loop job as before.
final class HeldFlushes {
    /// This thread's list, made the first time an executor job runs on it.
    private static let current = ThreadSpecificVariable<HeldFlushes>()

    /// How many executor jobs run on this thread now (jobs do not nest; this is a guard).
    private var jobsRunning = 0
    /// The drivers whose flush waits for the job's end, in the order they held it.
    private var drivers: [StreamTaskDriver] = []

    private init() {}

    /// Runs an executor job, `body`, then the flushes it held.
    static func runningJob(_ body: () -> Void) {
        let held: HeldFlushes
        if let existing = current.currentValue {
            held = existing
        } else {
            held = HeldFlushes()
            current.currentValue = held
        }
        held.jobsRunning += 1
        body()
        held.jobsRunning -= 1
        if held.jobsRunning == 0 { held.flushAll() }
    }

    /// Holds `driver`'s flush until the executor job running on this thread returns; `false`
    /// when no such job runs here (the caller queues its flush as a loop job instead).
    static func hold(_ driver: StreamTaskDriver) -> Bool {
        guard let held = current.currentValue, held.jobsRunning > 0 else { return false }
        held.drivers.append(driver)
        return true
    }

    /// Whether an executor job runs on this thread now.
    static var jobRunning: Bool {
        (current.currentValue?.jobsRunning ?? 0) > 0
    }

    /// Carries out the held flushes, in order. A flush completes writes, and what that
    /// decides may write and hold a flush again: it joins the end of the list, and is carried
    /// out too. The list keeps its storage, so that holding costs no allocation.
    private func flushAll() {
        var next = 0
        while next < drivers.count {
            let driver = drivers[next]
            next += 1
            driver.holdingActions { driver.flushNow() }
        }
        drivers.removeAll(keepingCapacity: true)
    }
}

// Each list is touched only by the thread it belongs to (`ThreadSpecificVariable` keeps one per
// thread); being `Sendable` lets the variable be a static constant.
extension HeldFlushes: @unchecked Sendable {}
