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

/// The count behind async writes that return before their bytes reach the kernel.
@Suite struct WriteBehindLedgerTests {
    /// `ledger.reserve(count, limit:)`, outside `#expect` (which cannot mutate).
    private func reserving(_ ledger: inout WriteBehindLedger, _ count: Int, limit: Int) -> Bool {
        ledger.reserve(count, limit: limit)
    }

    private func connected() -> WriteBehindLedger {
        var ledger = WriteBehindLedger()
        ledger.connected = true
        return ledger
    }

    @Test func writesReturnEarlyUpToTheLimitAndWaitPastIt() {
        var ledger = connected()
        #expect(reserving(&ledger, 40, limit: 100))
        #expect(reserving(&ledger, 60, limit: 100))
        #expect(!reserving(&ledger, 1, limit: 100), "past the limit a write waits")
        ledger.complete(40, error: nil)
        #expect(ledger.outstanding == 60)
        #expect(reserving(&ledger, 40, limit: 100))
        var fresh = connected()
        #expect(!reserving(&fresh, 1, limit: 0), "a limit of 0 never lets a write return early")
    }

    @Test func beforeTheConnectionOrWithAFullChannelWritesWait() {
        var ledger = WriteBehindLedger()
        #expect(!reserving(&ledger, 1, limit: 100), "not connected yet")
        ledger.connected = true
        ledger.channelWritable = false
        #expect(!reserving(&ledger, 1, limit: 100), "the channel is full")
        ledger.channelWritable = true
        #expect(reserving(&ledger, 1, limit: 100))
        #expect(ledger.outstanding == 1)
    }

    @Test func aFailureIsReportedOnceAndHoldsBackEarlyReturnsUntilThen() {
        var ledger = connected()
        #expect(reserving(&ledger, 10, limit: 100))
        #expect(reserving(&ledger, 10, limit: 100))
        ledger.complete(10, error: StreamTaskError(.connectionReset, "reset"))
        ledger.complete(10, error: StreamTaskError(.timedOut, "timed out"))
        #expect(!reserving(&ledger, 1, limit: 100), "an unreported failure makes the next write wait")
        let first = ledger.takeFailure()
        let second = ledger.takeFailure()
        #expect(first?.code == .connectionReset, "the first failure")
        #expect(second == nil, "reported once")
        #expect(ledger.outstanding == 0)
    }

    @Test func onceStoppedAConnectionComingUpDoesNotLetWritesReturnEarly() {
        var ledger = WriteBehindLedger()
        ledger.stopEarlyReturns()  // closeWrite() before the connection is up
        ledger.connected = true
        #expect(!reserving(&ledger, 1, limit: 100))
        var closedAfterConnecting = connected()
        closedAfterConnecting.stopEarlyReturns()
        #expect(!reserving(&closedAfterConnecting, 1, limit: 100))
    }
}
