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

/// Suspension as plain values: what a suspended task holds back, what it keeps doing, and what
/// `resume()` lets go.
extension StreamTaskStateMachineTests {
    /// The kind of each action, by its case name ("write", "close", …).
    private func kinds(_ actions: StreamTaskStateMachine.Actions) -> [String] {
        actions.map { String(String(describing: $0).prefix { $0 != "(" }) }
    }

    private func suspendedQueue(highWaterMark: Int = 1024) -> StreamTaskStateMachine {
        var queue = openQueue(highWaterMark: highWaterMark)
        #expect(queue.suspend().isEmpty)
        return queue
    }

    /// Operations queued off the loop wait for the loop's pass; a suspension made meanwhile
    /// lets them have that pass (they were issued before it) and holds what came after it.
    @Test func aSuspensionTakesEffectInTheOrderOfWhatWasQueuedAroundIt() {
        var queue = openQueue()
        #expect(queue.admit(.write(bytes("before")), id: id(1)).passNeeded)
        #expect(queue.suspend().isEmpty)
        #expect(queue.activity == .suspending(from: 2))
        #expect(queue.admit(.write(bytes("after")), id: id(2)).passNeeded)
        #expect(writes(queue.process()) == [1], "the write issued before the suspension goes")
        #expect(queue.activity == .suspended)
        #expect(writes(queue.writesCompleted(through: id(1), error: nil).actions).isEmpty, "the one after waits")
        #expect(writes(queue.resume()) == [2])
    }

    @Test func aSuspensionWithNothingOwedAPassHoldsAtOnce() {
        var queue = openQueue()
        _ = queue.receivedPass(bytes("x"))
        #expect(queue.admit(.read(minLength: 2, maxLength: 2), id: id(1)).passNeeded, "a byte is buffered for it")
        _ = queue.process()
        #expect(queue.suspend().isEmpty)
        #expect(queue.activity == .suspended, "every operation had its pass")
        #expect(reads(queue.receivedPass(bytes("y"))).isEmpty)
        #expect(reads(queue.resume()).map(\.1) == ["xy"])
    }

    @Test func aReadThatCanOnlyWaitIsOwedNoPass() {
        var queue = openQueue()
        _ = queue.process()
        #expect({ if case .requested = queue.inbound { true } else { false } }(), "input is on its way")
        #expect(!queue.admit(.read(minLength: 1, maxLength: 2), id: id(1)).passNeeded)
        #expect(queue.undecidedFrom == nil)
        #expect(reads(queue.receivedPass(bytes("ok"))).map(\.1) == ["ok"])
    }

    @Test func aResumeOffTheLoopDecidesNothingAndOwesAPass() {
        var queue = suspendedQueue()
        _ = queue.enqueue(.write(bytes("1")), id: id(1))
        #expect(queue.resume(deciding: false).isEmpty)
        #expect(queue.undecidedFrom != nil, "the loop owes the machine a pass")
        #expect(writes(queue.process()) == [1])
    }

    @Test func aSuspendedTaskCompletesNoReadEvenFromItsBuffer() {
        var queue = openQueue()
        _ = queue.receivedPass(bytes("hello"))
        _ = queue.suspend()
        #expect(reads(queue.enqueue(.read(minLength: 1, maxLength: 20), id: id(1))).isEmpty)
        #expect(reads(queue.receivedPass(bytes(" world"))).isEmpty)
        #expect(queue.bufferedByteCount == 11)
        #expect(reads(queue.resume()).map(\.1) == ["hello world"])
    }

    @Test func aSuspendedTaskSendsNothingAndResumeSendsInOrder() {
        var queue = suspendedQueue()
        #expect(queue.enqueue(.write(bytes("1")), id: id(1)).isEmpty)
        #expect(queue.enqueue(.write(bytes("2")), id: id(2)).isEmpty)
        #expect(queue.enqueue(.closeWrite, id: id(3)).isEmpty)
        // Refusals are no movement: a write after closeWrite still fails at once.
        #expect(failures(queue.enqueue(.write(bytes("x")), id: id(4))).map(\.1) == [.writeClosed])
        let resumed = queue.resume()
        #expect(writes(resumed) == [1, 2])
        #expect(kinds(resumed).contains("flush"))
        #expect(!kinds(resumed).contains("shutdownOutput"), "closeWrite still waits for the writes")
        _ = queue.writesCompleted(through: id(1), error: nil).actions
        #expect(kinds(queue.writesCompleted(through: id(2), error: nil).actions).contains("shutdownOutput"))
    }

    @Test func aSuspendedTaskStartsNoCloseTLSStepOrCapture() {
        var queue = suspendedQueue()
        #expect(queue.enqueue(.closeRead, id: id(1)).isEmpty)
        #expect(queue.enqueue(.startTLS(.client(StreamTLSConfiguration())), id: id(2)).isEmpty)
        #expect(queue.enqueue(.captureStreams, id: id(3)).isEmpty)
        let resumed = queue.resume()
        #expect(kinds(resumed).starts(with: ["emit", "shutdownInput", "succeed", "startTLS"]), "\(kinds(resumed))")
        _ = queue.suspend()
        #expect(kinds(queue.tlsTransitionCompleted(id(2), error: nil)) == ["succeed"], "the capture waits")
        #expect(kinds(queue.resume()) == ["captureStreams"])
    }

    @Test func inputKeepsComingUpToTheLimitWhileSuspended() {
        var queue = suspendedQueue(highWaterMark: 8)
        // The read wants more than the limit; while suspended, it does not count.
        _ = queue.enqueue(.read(minLength: 20, maxLength: 20), id: id(1))
        _ = queue.received(bytes("1234"))
        #expect(kinds(queue.receiveCompleted()) == ["requestInput"])
        _ = queue.received(bytes("5678"))
        #expect(queue.receiveCompleted().isEmpty, "at the limit, reading from the socket stops")
        #expect(kinds(queue.resume()) == ["requestInput"], "the read wants 20 bytes")
    }

    @Test func aSuspendedTaskKeepsItsConnectionWhenBothDirectionsHaveEnded() {
        var queue = openQueue()
        _ = queue.enqueue(.closeWrite, id: id(1))
        _ = queue.receivedPass(bytes("last"))
        _ = queue.suspend()
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(2))
        let ended = queue.inputEnded()
        #expect(kinds(ended) == ["emit"], "the read-closed event, and no close")
        let resumed = queue.resume()
        #expect(reads(resumed).map { "\($0.1)|\($0.2)" } == ["last|true"])
        #expect(kinds(resumed).last == "close")
    }

    @Test func theConnectionGoingAwayEndsWhatASuspendedTaskHeld() {
        var queue = suspendedQueue()
        _ = queue.receivedPass(bytes("abc"))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(1))
        _ = queue.enqueue(.write(bytes("never sent")), id: id(2))
        let actions = queue.closed(error: StreamTaskError(.connectionReset, "reset"))
        #expect(reads(actions).map(\.1) == ["abc"])
        #expect(failures(actions).map { "\($0.0) \($0.1)" } == ["2 connectionReset"])
        #expect(!queue.hasPendingOperations)
    }

    @Test func cancellingASuspendedTaskFailsEverythingAndCloses() {
        var queue = suspendedQueue()
        _ = queue.receivedPass(bytes("abc"))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(1))
        _ = queue.enqueue(.write(bytes("x")), id: id(2))
        let actions = queue.cancel()
        #expect(failures(actions).map(\.1) == [.cancelled, .cancelled])
        #expect(kinds(actions).last == "close")
    }

    @Test func aTaskSuspendedBeforeItConnectsHoldsItsOperationsOnceConnected() {
        var queue = StreamTaskStateMachine.startedForTests()
        _ = queue.suspend()
        _ = queue.enqueue(.write(bytes("early")), id: id(1))
        #expect(writes(queue.connected()).isEmpty)
        #expect(writes(queue.resume()) == [1])
    }

    @Test func aTimeoutWhileSuspendedWithdrawsTheOperationAndLosesNothing() {
        var queue = suspendedQueue()
        _ = queue.receivedPass(bytes("kept"))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(1))
        _ = queue.enqueue(.write(bytes("withdrawn")), id: id(2))
        let timeout = StreamTaskError(.timedOut, "test")
        #expect(kinds(queue.abandon(id(1), error: timeout)) == ["fail"])
        #expect(kinds(queue.abandon(id(2), error: timeout)) == ["fail"], "a queued write closes nothing")
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(3))
        let resumed = queue.resume()
        #expect(reads(resumed).map(\.1) == ["kept"])
        #expect(writes(resumed).isEmpty)
    }
}
