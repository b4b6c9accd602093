//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import StreamTaskCore

@Suite struct HostConnectionLimiterTests {
    /// Runs a mutating call outside `#expect`, which cannot make one itself.
    private func step<T>(_ limiter: inout HostConnectionLimiter, _ body: (inout HostConnectionLimiter) -> T) -> T {
        body(&limiter)
    }

    @Test func tasksOverTheLimitWaitInOrder() {
        var limiter = HostConnectionLimiter(limit: 2)
        #expect(step(&limiter) { $0.acquire(host: "a.example", task: 1) })
        #expect(step(&limiter) { $0.acquire(host: "A.example", task: 2) })
        #expect(!step(&limiter) { $0.acquire(host: "a.example", task: 3) })
        #expect(!step(&limiter) { $0.acquire(host: "a.example", task: 4) })
        // Another host is not affected.
        #expect(step(&limiter) { $0.acquire(host: "b.example", task: 5) })
        #expect(step(&limiter) { $0.finished(task: 2) } == 3)
        #expect(step(&limiter) { $0.finished(task: 1) } == 4)
        #expect(limiter.openCount(host: "a.example") == 2)
        #expect(step(&limiter) { $0.finished(task: 3) } == nil)
        #expect(step(&limiter) { $0.finished(task: 4) } == nil)
        #expect(limiter.openCount(host: "a.example") == 0)
    }

    @Test func aWaitingTaskThatEndsGivesUpItsPlace() {
        var limiter = HostConnectionLimiter(limit: 1)
        #expect(step(&limiter) { $0.acquire(host: "h", task: 1) })
        #expect(!step(&limiter) { $0.acquire(host: "h", task: 2) })
        #expect(!step(&limiter) { $0.acquire(host: "h", task: 3) })
        #expect(step(&limiter) { $0.finished(task: 2) } == nil)
        #expect(limiter.waitingCount(host: "h") == 1)
        #expect(limiter.openCount(host: "h") == 1)
        #expect(step(&limiter) { $0.finished(task: 1) } == 3)
    }

    @Test func newcomersDoNotJumpTheQueue() {
        var limiter = HostConnectionLimiter(limit: 1)
        #expect(step(&limiter) { $0.acquire(host: "h", task: 1) })
        #expect(!step(&limiter) { $0.acquire(host: "h", task: 2) })
        #expect(step(&limiter) { $0.finished(task: 1) } == 2)
        #expect(!step(&limiter) { $0.acquire(host: "h", task: 3) })
    }
}
