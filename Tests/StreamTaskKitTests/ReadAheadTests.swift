//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import StreamTaskCore

/// The lending that lets reads issued off the loop take buffered bytes (`ReadAhead`), as a
/// value over a buffer of its own.
@Suite struct ReadAheadTests {
    private func text(_ taken: ByteBuffer?) -> String? {
        taken.map { String(buffer: $0) }
    }

    private func buffer(_ text: String) -> ByteQueue {
        ByteQueue(ByteBuffer(string: text))
    }

    @Test func aReadTakesBufferedBytesOnlyWhileTheLendingIsOpen() {
        var ahead = ReadAhead()
        var bytes = buffer("hello")
        let outcome1 = ahead.take(for: .read(minLength: 1, maxLength: 3), from: &bytes)
        #expect(outcome1 == nil, "the lending is not open yet")
        _ = ahead.lend(&bytes)
        let outcome2 = ahead.take(for: .read(minLength: 1, maxLength: 3), from: &bytes)
        #expect(text(outcome2) == "hel")
        _ = ahead.operationSubmitted()
        let outcome3 = ahead.take(for: .read(minLength: 1, maxLength: 3), from: &bytes)
        #expect(outcome3 == nil, "a read is on its way to the loop")
        #expect(bytes.readableBytes == 2, "what was not taken stays where it is")
        _ = ahead.close(arriving: true)
        #expect(ahead.mayLend)
    }

    @Test func theLoopLendsOnlyOnceEveryOperationOnItsWayHasArrived() {
        var ahead = ReadAhead()
        _ = ahead.operationSubmitted()
        _ = ahead.operationSubmitted()
        #expect(!ahead.mayLend)
        _ = ahead.close(arriving: true)
        #expect(!ahead.mayLend, "one operation is still on its way")
        _ = ahead.close(arriving: true)
        #expect(ahead.mayLend)
        ahead.stop()
        #expect(!ahead.mayLend, "a cancelled task lends nothing")
        #expect(!ahead.isOpen)
    }

    @Test func aReadTheBufferCannotSatisfyAtOnceGoesToTheLoop() {
        var ahead = ReadAhead()
        var bytes = buffer("abc")
        _ = ahead.lend(&bytes)
        let outcome5 = ahead.take(for: .read(minLength: 4, maxLength: 10), from: &bytes)
        #expect(outcome5 == nil, "it wants more than is buffered")
        let outcome6 = ahead.take(for: .read(minLength: 0, maxLength: 0), from: &bytes)
        #expect(outcome6 == nil, "the loop reports the invalid length")
        let outcome7 = ahead.take(for: .read(minLength: -1, maxLength: 2), from: &bytes)
        #expect(outcome7 == nil)
        let outcome8 = ahead.take(for: .readThrough(delimiter: Array("\n".utf8), maxLength: 10), from: &bytes)
        #expect(outcome8 == nil, "no delimiter yet")
        #expect(bytes.readableBytes == 3, "a read that goes to the loop takes nothing")
        let outcome9 = ahead.take(for: .read(minLength: 0, maxLength: 10), from: &bytes)
        #expect(text(outcome9) == "abc", "a minimum of 0 takes what is there")
    }

    @Test func aDelimitedReadTakesThroughTheFirstDelimiterWithinItsMaximum() {
        var ahead = ReadAhead()
        var bytes = buffer("PING a\r\nPING b\r\n")
        _ = ahead.lend(&bytes)
        let outcome10 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 5), from: &bytes)
        #expect(outcome10 == nil, "the delimiter ends past the maximum")
        let outcome11 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 8), from: &bytes)
        #expect(text(outcome11) == "PING a\r\n")
        let outcome12 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 100), from: &bytes)
        #expect(text(outcome12) == "PING b\r\n")
        #expect(bytes.readableBytes == 0)
    }
}

/// Reads that find nothing buffered and wait in the lending, as values.
@Suite struct ReadAheadParkingTests {
    private func read(
        _ id: UInt64, _ operation: StreamTaskStateMachine.Operation = .read(minLength: 1, maxLength: 3),
        timeout: TimeInterval = 0, startedAt: NIODeadline = .uptimeNanoseconds(0),
        abandoned: NIOLockedValueBox<Bool>? = nil
    ) -> OperationRequest {
        OperationRequest(
            operation: operation, id: OperationID(rawValue: id), timeout: timeout, startedAt: startedAt,
            abandoned: abandoned, completion: .handler { _ in })
    }

    private func parks(_ ahead: inout ReadAhead, _ read: OperationRequest, buffered: Int = 0) -> Bool {
        ahead.park(read, buffered: buffered).parked
    }

    /// A lending opened over an empty buffer.
    private func openLending() -> ReadAhead {
        var ahead = ReadAhead()
        var empty = ByteQueue()
        _ = ahead.lend(&empty)
        return ahead
    }

    @Test func aReadParksOnlyInAnOpenLendingOverAnEmptyBufferAndOneAtATime() {
        var ahead = ReadAhead()
        #expect(!parks(&ahead, read(1)), "the lending is not open")
        ahead = openLending()
        #expect(!parks(&ahead, read(1), buffered: 1), "bytes are buffered: the read takes them instead")
        #expect(parks(&ahead, read(1)))
        #expect(ahead.hasParkedRead)
        #expect(!parks(&ahead, read(2)), "one read is parked already")
        var bytes = ByteQueue(ByteBuffer(string: "x"))
        let taken = ahead.take(for: .read(minLength: 0, maxLength: 10), from: &bytes)
        #expect(taken == nil, "nothing is taken past a parked read")
    }

    @Test func readsTheMachineWouldRefuseOrWhoseCallerLeftDoNotPark() {
        var ahead = openLending()
        #expect(!parks(&ahead, read(1, .read(minLength: 0, maxLength: 0))))
        #expect(!parks(&ahead, read(1, .read(minLength: 5, maxLength: 2))))
        #expect(!parks(&ahead, read(1, .readThrough(delimiter: [], maxLength: 10))))
        #expect(!parks(&ahead, read(1, .readThrough(delimiter: Array("\r\n".utf8), maxLength: 1))))
        #expect(!parks(&ahead, read(1, .closeRead)))
        #expect(!parks(&ahead, read(1, abandoned: NIOLockedValueBox(true))))
        #expect(!ahead.hasParkedRead)
        #expect(parks(&ahead, read(1, .readThrough(delimiter: Array("\n".utf8), maxLength: 1))))
    }

    @Test func bytesThatSatisfyTheParkedReadAreItsAndTheRestStaysBuffered() throws {
        var ahead = openLending()
        #expect(parks(&ahead, read(7)))
        var bytes = ByteQueue(ByteBuffer(string: "hello"))
        guard case .satisfied(let parked, let taken) = ahead.lend(&bytes) else {
            Issue.record("the bytes satisfy the read")
            return
        }
        #expect(parked.id == OperationID(rawValue: 7))
        #expect(String(buffer: taken) == "hel")
        #expect(!ahead.hasParkedRead)
        #expect(ahead.isOpen)
        let rest = ahead.take(for: .read(minLength: 1, maxLength: 10), from: &bytes)
        #expect(rest.map { String(buffer: $0) } == "lo")
    }

    @Test func bytesThatFallShortSendTheReadToTheMachineAndLeaveTheBytes() {
        var ahead = openLending()
        #expect(parks(&ahead, read(3, .readThrough(delimiter: Array("\n".utf8), maxLength: 100))))
        var bytes = ByteQueue(ByteBuffer(string: "ab"))
        guard case .fellShort(let parked) = ahead.lend(&bytes) else {
            Issue.record("no delimiter yet: the machine decides")
            return
        }
        #expect(parked.id == OperationID(rawValue: 3))
        #expect(bytes.readableBytes == 2, "the bytes stay for the machine")
        #expect(!ahead.isOpen, "the lending closed")
        #expect(!ahead.hasParkedRead)
        #expect(ahead.mayLend, "nothing is on its way: the loop lends again once the machine allows")
    }

    @Test func anOperationSubmittedSendsTheParkedReadAheadOfItself() {
        var ahead = openLending()
        #expect(parks(&ahead, read(1)))
        let first = ahead.operationSubmitted()
        #expect(first?.id == OperationID(rawValue: 1))
        #expect(!ahead.hasParkedRead)
        _ = ahead.close(arriving: true)
        #expect(!ahead.mayLend, "the parked read and the operation are both on their way")
        _ = ahead.close(arriving: true)
        #expect(ahead.mayLend)
        #expect(ahead.operationSubmitted() == nil, "nothing parked: nothing goes first")
    }

    @Test func theLoopTakesTheParkedReadBackAsItClosesTheLending() {
        var ahead = openLending()
        #expect(parks(&ahead, read(4)))
        let parked = ahead.close(arriving: false)
        #expect(parked?.id == OperationID(rawValue: 4))
        #expect(!ahead.hasParkedRead)
        #expect(!ahead.isOpen)
    }

    @Test func onlyTheReadParkedUnderAnIDIsUnparkedByIt() {
        var ahead = openLending()
        #expect(parks(&ahead, read(4)))
        #expect(ahead.unpark(OperationID(rawValue: 5)) == nil)
        #expect(ahead.hasParkedRead)
        #expect(ahead.unpark(OperationID(rawValue: 4))?.id == OperationID(rawValue: 4))
        #expect(!ahead.hasParkedRead)
    }

    @Test func theTimerIsArmedForTheEarliestDeadlineAndMovesOnToTheNext() {
        var ahead = openLending()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let first = ahead.park(read(1, timeout: 10, startedAt: start), buffered: 0)
        #expect(first.armTimerAt == start + .seconds(Int64(10)))
        _ = ahead.unpark(OperationID(rawValue: 1))
        let later = ahead.park(read(2, timeout: 20, startedAt: start), buffered: 0)
        #expect(later.parked)
        #expect(later.armTimerAt == nil, "the timer armed fires first, and moves on")
        let (expired, rearmAt) = ahead.parkTimerFired(now: start + .seconds(Int64(10)))
        #expect(expired == nil)
        #expect(rearmAt == start + .seconds(Int64(20)))
        let (expiredLater, rearmAgain) = ahead.parkTimerFired(now: start + .seconds(Int64(20)))
        #expect(expiredLater?.id == OperationID(rawValue: 2))
        #expect(rearmAgain == nil)
        #expect(!ahead.hasParkedRead)
        let sooner = ahead.park(read(3, timeout: 1, startedAt: start + .seconds(Int64(20))), buffered: 0)
        #expect(sooner.armTimerAt == start + .seconds(Int64(21)), "the timer is disarmed: armed anew")
        _ = ahead.unpark(OperationID(rawValue: 3))
        let soonest = ahead.park(read(4, timeout: 1, startedAt: start), buffered: 0)
        #expect(soonest.armTimerAt == start + .seconds(Int64(1)), "earlier than the timer armed")
        _ = ahead.unpark(OperationID(rawValue: 4))
        let none = ahead.park(read(5, timeout: 0, startedAt: start), buffered: 0)
        #expect(none.parked && none.armTimerAt == nil, "no timeout, no timer")
    }
}

/// The state machine's side of the lending: when it may lend, reads off the loop taking from
/// its buffer, and the input those reads make room for.
@Suite struct StreamTaskStateMachineReadAheadTests {
    @Test func theMachineLendsOnlyWhileNoOperationClaimsItsInput() {
        var machine = StreamTaskStateMachine()
        #expect(!machine.mayLendBuffer, "not connected yet")
        _ = machine.connected()
        #expect(machine.mayLendBuffer)
        _ = machine.enqueue(.write(ByteBuffer(string: "x")), id: OperationID(rawValue: 1))
        #expect(machine.mayLendBuffer, "a write leaves the input alone")
        _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: OperationID(rawValue: 2))
        #expect(!machine.mayLendBuffer, "a read waits for the input")
        _ = machine.received(ByteBuffer(string: "y"))
        #expect(machine.mayLendBuffer, "the read completed")
        _ = machine.inputEnded()
        #expect(!machine.mayLendBuffer, "reads at the end of the stream are the machine's")
    }

    @Test func aReadOffTheLoopTakesFromTheBufferAndWhatArrivesLaterComesAfter() {
        var machine = StreamTaskStateMachine()
        _ = machine.connected()
        _ = machine.received(ByteBuffer(string: "ab"))
        #expect(machine.readAtOnce(.read(minLength: 1, maxLength: 1)) == nil, "the lending is not open yet")
        guard
            case .opened(.nothingParked, asksForInput: false) = machine.lendAfterStep(
                taskRunning: true, midBurst: false)
        else {
            Issue.record("the lending opens")
            return
        }
        #expect(machine.readAtOnce(.read(minLength: 1, maxLength: 1)).map { String(buffer: $0.bytes) } == "a")
        _ = machine.received(ByteBuffer(string: "cd"))
        let actions = machine.enqueue(.read(minLength: 3, maxLength: 3), id: OperationID(rawValue: 1))
        let read = actions.compactMap { action -> String? in
            if case .succeedRead(_, let bytes, _, _) = action { return String(buffer: bytes) }
            return nil
        }
        #expect(read == ["bcd"])
        #expect(machine.readAtOnce(.read(minLength: 0, maxLength: 1)) == nil, "a read on the loop closed the lending")
    }

    @Test func theLendingStaysShutMidBurstAndWhileTheTaskIsNotRunning() {
        var machine = StreamTaskStateMachine()
        _ = machine.connected()
        guard case .nothing = machine.lendAfterStep(taskRunning: false, midBurst: false) else {
            Issue.record("a suspended task lends nothing")
            return
        }
        guard case .nothing = machine.lendAfterStep(taskRunning: true, midBurst: true) else {
            Issue.record("mid-burst, the bytes wait for the rest of it")
            return
        }
        #expect(!machine.readAhead.isOpen)
    }

    @Test func aReadThatTakesTheBufferBelowItsLimitAsksForInputAgain() {
        var machine = StreamTaskStateMachine(highWaterMark: 4)
        _ = machine.connected()
        _ = machine.received(ByteBuffer(string: "012345"))
        _ = machine.receiveCompleted()
        #expect(!machine.wantsInput, "the buffer is full")
        _ = machine.lendAfterStep(taskRunning: true, midBurst: false)
        #expect(
            machine.readAtOnce(.read(minLength: 1, maxLength: 1))?.asksForInput == false, "5 bytes are over the limit")
        #expect(machine.readAtOnce(.read(minLength: 2, maxLength: 2))?.asksForInput == true, "3 are under it")
        let actions = machine.inputRoomMade()
        #expect(actions.contains { if case .requestInput = $0 { true } else { false } })
        #expect(
            machine.readAtOnce(.read(minLength: 1, maxLength: 1))?.asksForInput == false, "input is asked for already")
    }

    @Test func theLendingClosesOnceTheMachineMayNoLongerLendAndGivesBackTheParkedRead() {
        var machine = StreamTaskStateMachine()
        _ = machine.connected()
        _ = machine.lendAfterStep(taskRunning: true, midBurst: false)
        let request = OperationRequest(
            operation: .read(minLength: 1, maxLength: 3), id: OperationID(rawValue: 9), timeout: 0,
            startedAt: .now(), abandoned: nil, completion: .handler { _ in })
        #expect(machine.readAhead.park(request, buffered: machine.bufferedByteCount).parked)
        _ = machine.inputEnded()
        guard case .closed(let parked) = machine.lendAfterStep(taskRunning: true, midBurst: false) else {
            Issue.record("the input ended: the machine decides the read")
            return
        }
        #expect(parked?.id == OperationID(rawValue: 9))
        #expect(!machine.readAhead.isOpen)
    }
}
