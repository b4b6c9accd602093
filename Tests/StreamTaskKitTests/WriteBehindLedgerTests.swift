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

/// The count behind async writes that return before their bytes reach the kernel, and the
/// writes that wait for room among them. Waiters here are plain numbers.
@Suite struct WriteBehindLedgerTests {
    typealias Ledger = WriteBehindLedger<Int>

    /// What `ledger.admit` says, outside `#expect` (which cannot mutate), as a word.
    /// The task as the ledger sees it: connected and running, with a writable channel,
    /// unless told otherwise.
    private func task(running: Bool = true, writable: Bool = true) -> Ledger.Conditions {
        Ledger.Conditions(connectedAndRunning: running, channelWritable: writable)
    }

    private func admitting(_ ledger: inout Ledger, _ count: Int, limit: Int, running: Bool = true) -> String {
        switch ledger.admit(count, limit: limit, task(running: running)) {
        case .reserved: "reserved"
        case .waitForRoom: "room"
        case .waitForOutcome: "outcome"
        case .failed(let error): "failed \(error.code)"
        }
    }

    /// What `ledger.release` decides, as waiters and a word.
    private func releasing(
        _ ledger: inout Ledger, limit: Int, running: Bool = true, writable: Bool = true
    ) -> String {
        switch ledger.release(limit: limit, task(running: running, writable: writable)) {
        case .none: "none"
        case .granted(let waiters): "granted \(waiters)"
        case .resubmitted(let waiters): "resubmitted \(waiters)"
        case .failed(let waiters, let error): "failed \(waiters) \(error.code)"
        }
    }

    @Test func writesReturnEarlyUpToTheLimitAndWaitForRoomPastIt() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 40, limit: 100) == "reserved")
        #expect(admitting(&ledger, 60, limit: 100) == "reserved")
        #expect(admitting(&ledger, 1, limit: 100) == "room", "past the limit a write waits for room")
        ledger.complete(40, error: nil)
        #expect(ledger.outstanding == 60)
        #expect(admitting(&ledger, 40, limit: 100) == "reserved")
        var fresh = Ledger()
        #expect(admitting(&fresh, 1, limit: 0) == "outcome", "a limit of 0 never lets a write return early")
        #expect(admitting(&fresh, 101, limit: 100) == "outcome", "a write larger than the limit waits for its bytes")
    }

    @Test func aWaitingWriteGetsRoomAtHalfTheLimitAndWritesWaitInOrder() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 90, limit: 100) == "reserved")
        #expect(admitting(&ledger, 20, limit: 100) == "room")
        ledger.park(1, id: OperationID(rawValue: 1), count: 20)
        #expect(admitting(&ledger, 5, limit: 100) == "room", "a write that would fit still queues behind a waiting one")
        ledger.park(2, id: OperationID(rawValue: 2), count: 5)
        ledger.complete(30, error: nil)
        #expect(releasing(&ledger, limit: 100) == "none", "60 outstanding is more than half the limit")
        ledger.complete(10, error: nil)
        #expect(releasing(&ledger, limit: 100) == "granted [1, 2]", "at half the limit, as many as fit go, in order")
        #expect(ledger.outstanding == 75)
        #expect(ledger.waitingCount == 0)
    }

    @Test func aWaitingWriteWhoseBytesWouldPassTheLimitWaitsForThem() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 50, limit: 100) == "reserved")
        #expect(admitting(&ledger, 60, limit: 100) == "room")
        ledger.park(1, id: OperationID(rawValue: 1), count: 60)
        #expect(releasing(&ledger, limit: 100) == "none", "50 + 60 passes the limit")
        ledger.complete(10, error: nil)
        #expect(releasing(&ledger, limit: 100) == "granted [1]")
    }

    @Test func aFullChannelHoldsWaitingWritesUntilItTakesMore() {
        var ledger = Ledger()
        let full = ledger.admit(1, limit: 100, task(writable: false))
        guard case .waitForRoom = full else {
            Issue.record("a full channel makes a write wait for room, not \(full)")
            return
        }
        ledger.park(1, id: OperationID(rawValue: 1), count: 1)
        #expect(releasing(&ledger, limit: 100, writable: false) == "none")
        #expect(releasing(&ledger, limit: 100) == "granted [1]")
        #expect(ledger.outstanding == 1)
    }

    @Test func aWithdrawnWriteLeavesTheQueueAndIsNeverLetGo() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 100, limit: 100) == "reserved")
        ledger.park(1, id: OperationID(rawValue: 1), count: 10)
        ledger.park(2, id: OperationID(rawValue: 2), count: 10)
        #expect(ledger.withdraw(OperationID(rawValue: 1)) == 1)
        #expect(ledger.withdraw(OperationID(rawValue: 1)) == nil, "withdrawn once")
        ledger.complete(100, error: nil)
        #expect(releasing(&ledger, limit: 100) == "granted [2]")
    }

    @Test func theTasksTimerFindsTheWaitsThatAreOverAndTheNextDeadline() {
        var ledger = Ledger()
        let start = NIODeadline.now()
        #expect(admitting(&ledger, 100, limit: 100) == "reserved")
        ledger.park(1, id: OperationID(rawValue: 1), count: 10, deadline: start + .seconds(Int64(2)))
        ledger.park(2, id: OperationID(rawValue: 2), count: 10)
        ledger.park(3, id: OperationID(rawValue: 3), count: 10, deadline: start + .seconds(Int64(1)))
        ledger.park(4, id: OperationID(rawValue: 4), count: 10, deadline: start + .seconds(Int64(3)))
        let early = ledger.expired(at: start)
        #expect(early.due.isEmpty)
        #expect(early.next == start + .seconds(Int64(1)))
        let later = ledger.expired(at: start + .seconds(Int64(2)))
        #expect(
            later.due.map(\.waiter) == [1, 3], "due waits, in the order they parked; a wait with no deadline never is")
        #expect(later.next == start + .seconds(Int64(3)))
        #expect(ledger.waitingCount == 4, "they stay parked until withdrawn")
    }

    @Test func stoppingOrSuspendingResubmitsTheWaitingWritesInOrder() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 100, limit: 100) == "reserved")
        ledger.park(1, id: OperationID(rawValue: 1), count: 10)
        ledger.park(2, id: OperationID(rawValue: 2), count: 10)
        #expect(releasing(&ledger, limit: 100, running: false) == "resubmitted [1, 2]", "suspended")
        ledger.park(3, id: OperationID(rawValue: 3), count: 10)
        ledger.stopEarlyReturns()
        #expect(releasing(&ledger, limit: 100) == "resubmitted [3]", "closeWrite, cancel or the close")
        #expect(ledger.outstanding == 100, "resubmitted writes wait for their outcome and are not counted")
        ledger.park(4, id: OperationID(rawValue: 4), count: 10)
        ledger.park(5, id: OperationID(rawValue: 5), count: 10)
        #expect(ledger.withdrawAll() == [4, 5], "a cancel takes them all, in order")
        #expect(ledger.waitingCount == 0)
    }

    @Test func aFailureFailsTheWaitingWritesOrTheNextOneOnce() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 60, limit: 100) == "reserved")
        #expect(admitting(&ledger, 40, limit: 100) == "reserved")
        ledger.park(1, id: OperationID(rawValue: 1), count: 10)
        ledger.complete(60, error: StreamTaskError(.connectionReset, "reset"))
        #expect(releasing(&ledger, limit: 100) == "failed [1] connectionReset", "the waiting write is not sent")
        ledger.complete(40, error: StreamTaskError(.timedOut, "timed out"))
        #expect(admitting(&ledger, 1, limit: 100) == "failed timedOut", "no waiter: the next write reports it")
        #expect(admitting(&ledger, 1, limit: 100) == "reserved", "reported once")
        #expect(ledger.outstanding == 1)
    }

    @Test func beforeTheConnectionOrOnceStoppedWritesWaitForTheirOutcome() {
        var ledger = Ledger()
        #expect(admitting(&ledger, 1, limit: 100, running: false) == "outcome", "not connected yet")
        ledger.stopEarlyReturns()  // closeWrite() before the connection is up
        #expect(admitting(&ledger, 1, limit: 100) == "outcome", "connected now, but stopped")
        var closedAfterConnecting = Ledger()
        closedAfterConnecting.stopEarlyReturns()
        #expect(admitting(&closedAfterConnecting, 1, limit: 100) == "outcome")
        var suspended = Ledger()
        #expect(admitting(&suspended, 1, limit: 100, running: false) == "outcome")
    }
}
