//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// A task's one timer, driven as a value: when it must be scheduled again, and what is due
/// when it fires.
@Suite struct OperationDeadlinesTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func id(_ raw: UInt64) -> OperationID { OperationID(rawValue: raw) }

    func at(_ milliseconds: Int64) -> NIODeadline { start + .milliseconds(milliseconds) }

    func add(_ deadlines: inout OperationDeadlines, _ raw: UInt64, at milliseconds: Int64) -> NIODeadline? {
        deadlines.add(
            id(raw), deadline: at(milliseconds), timeout: Double(milliseconds) / 1000, operation: .closeWrite,
            returnedEarly: false)
    }

    @Test func operationsWithTheSameTimeoutArmTheTimerOnce() {
        var deadlines = OperationDeadlines()
        #expect(add(&deadlines, 1, at: 5000) == at(5000))
        for raw in 2...1000 {
            #expect(add(&deadlines, UInt64(raw), at: 5000 + Int64(raw)) == nil)
        }
        #expect(deadlines.armedAt == at(5000))
    }

    @Test func anEarlierDeadlineMovesTheTimerForward() {
        var deadlines = OperationDeadlines()
        #expect(add(&deadlines, 1, at: 5000) == at(5000))
        #expect(add(&deadlines, 2, at: 100) == at(100))
        #expect(add(&deadlines, 3, at: 100) == nil)
        #expect(deadlines.armedAt == at(100))
    }

    @Test func aFiringTakesWhatIsDueInOrderAndLeavesTheRest() {
        var deadlines = OperationDeadlines()
        _ = add(&deadlines, 1, at: 300)
        _ = add(&deadlines, 2, at: 100)
        _ = add(&deadlines, 3, at: 100)
        _ = add(&deadlines, 4, at: 900)
        let due = deadlines.fired(now: at(300))
        // Earliest deadline first, then the order they were timed in.
        #expect(due.map(\.id) == [id(2), id(3), id(1)])
        #expect(deadlines.armedAt == nil)
        #expect(deadlines.rearm() == at(900))
        #expect(deadlines.rearm() == nil, "armed already")
    }

    @Test func finishedOperationsAreNeverDueAndTheTimerMovesOn() {
        var deadlines = OperationDeadlines()
        _ = add(&deadlines, 1, at: 100)
        _ = add(&deadlines, 2, at: 200)
        deadlines.remove(id(1))
        deadlines.remove(id(2))
        // The timer stayed armed for the first; it fires and finds nothing.
        #expect(deadlines.armedAt == at(100))
        #expect(deadlines.fired(now: at(100)).isEmpty)
        #expect(deadlines.rearm() == nil)
        #expect(deadlines.isEmpty)
    }

    @Test func aCompletedTaskTimesNothing() {
        var deadlines = OperationDeadlines()
        _ = add(&deadlines, 1, at: 100)
        deadlines.removeAll()
        #expect(deadlines.isEmpty)
        #expect(deadlines.armedAt == nil)
        #expect(add(&deadlines, 2, at: 500) == at(500))
    }

    /// The parked reads have one entry, timed for the earliest deadline asked for.
    @Test func theParkedReadsKeepTheirEarliestDeadline() {
        var deadlines = OperationDeadlines()
        #expect(deadlines.addParkedReads(at: at(500)) == at(500))
        #expect(deadlines.addParkedReads(at: at(900)) == nil)
        #expect(deadlines.addParkedReads(at: at(200)) == at(200))
        _ = add(&deadlines, 1, at: 300)
        let due = deadlines.fired(now: at(900))
        #expect(due.map(\.id) == [OperationDeadlines.parkedReadsID, id(1)])
        #expect(deadlines.isEmpty, "the parked reads' later deadlines were not kept beside the earliest")
    }
}
