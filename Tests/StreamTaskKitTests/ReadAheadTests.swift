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

/// The bytes the event loop lends to reads issued off the loop (`ReadAhead`), as a value.
@Suite struct ReadAheadTests {
    private func text(_ taken: (bytes: ByteBuffer, resumesInput: Bool)?) -> String? {
        taken.map { String(buffer: $0.bytes) }
    }

    @Test func aReadTakesLentBytesOnlyWhileTheLendingIsOpen() {
        var ahead = ReadAhead()
        let outcome1 = ahead.take(for: .read(minLength: 1, maxLength: 3))
        #expect(outcome1 == nil, "nothing is lent yet")
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "hello")), limit: 100)
        let outcome2 = ahead.take(for: .read(minLength: 1, maxLength: 3))
        #expect(text(outcome2) == "hel")
        _ = ahead.operationSubmitted()
        let outcome3 = ahead.take(for: .read(minLength: 1, maxLength: 3))
        #expect(outcome3 == nil, "a read is on its way to the loop")
        let outcome4 = ahead.reclaim(arriving: true).lent
        var lent = outcome4
        #expect(lent.takeAll().map { String(buffer: $0) } == "lo")
        #expect(ahead.count == 0)
        #expect(ahead.mayLend)
    }

    @Test func theLoopLendsOnlyOnceEveryOperationOnItsWayHasArrived() {
        var ahead = ReadAhead()
        _ = ahead.operationSubmitted()
        _ = ahead.operationSubmitted()
        #expect(!ahead.mayLend)
        _ = ahead.reclaim(arriving: true)
        #expect(!ahead.mayLend, "one operation is still on its way")
        _ = ahead.reclaim(arriving: true)
        #expect(ahead.mayLend)
        ahead.stop()
        #expect(!ahead.mayLend, "a cancelled task lends nothing")
        #expect(!ahead.isOpen)
    }

    @Test func aReadTheLentBytesCannotSatisfyAtOnceGoesToTheLoop() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "abc")), limit: 100)
        let outcome5 = ahead.take(for: .read(minLength: 4, maxLength: 10))
        #expect(outcome5 == nil, "it wants more than is lent")
        let outcome6 = ahead.take(for: .read(minLength: 0, maxLength: 0))
        #expect(outcome6 == nil, "the loop reports the invalid length")
        let outcome7 = ahead.take(for: .read(minLength: -1, maxLength: 2))
        #expect(outcome7 == nil)
        let outcome8 = ahead.take(for: .readThrough(delimiter: Array("\n".utf8), maxLength: 10))
        #expect(outcome8 == nil, "no delimiter yet")
        #expect(ahead.count == 3, "a read that goes to the loop takes nothing")
        let outcome9 = ahead.take(for: .read(minLength: 0, maxLength: 10))
        #expect(text(outcome9) == "abc", "a minimum of 0 takes what is there")
    }

    @Test func aDelimitedReadTakesThroughTheFirstDelimiterWithinItsMaximum() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "PING a\r\nPING b\r\n")), limit: 100)
        let outcome10 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 5))
        #expect(outcome10 == nil, "the delimiter ends past the maximum")
        let outcome11 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 8))
        #expect(text(outcome11) == "PING a\r\n")
        let outcome12 = ahead.take(for: .readThrough(delimiter: Array("\r\n".utf8), maxLength: 100))
        #expect(text(outcome12) == "PING b\r\n")
        #expect(ahead.count == 0)
    }

    @Test func lendingAddsBehindWhatIsLentAlready() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "ab")), limit: 100)
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "cd")), limit: 100)
        let outcome13 = ahead.take(for: .read(minLength: 4, maxLength: 4))
        #expect(text(outcome13) == "abcd")
    }

    @Test func heldInputIsResumedByTheReadThatTakesTheBytesBelowTheLimit() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "0123456789")), limit: 8)
        let outcome14 = ahead.holdsInput(buffered: -3)
        #expect(!outcome14, "under the limit, input goes on")
        let outcome15 = ahead.holdsInput(buffered: 0)
        #expect(outcome15)
        let outcome16 = ahead.take(for: .read(minLength: 1, maxLength: 1))
        #expect(outcome16?.resumesInput == false, "9 bytes are still at the limit")
        let outcome17 = ahead.take(for: .read(minLength: 2, maxLength: 2))
        #expect(outcome17?.resumesInput == true, "7 bytes are under it")
        let outcome18 = ahead.take(for: .read(minLength: 1, maxLength: 1))
        #expect(outcome18?.resumesInput == false, "the loop is told once")
    }
}

/// Reads that find nothing lent and wait in the lending, as values.
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

    private func parks(_ ahead: inout ReadAhead, _ read: OperationRequest) -> Bool {
        ahead.park(read).parked
    }

    @Test func aReadParksOnlyInAnOpenEmptyLendingAndOneAtATime() {
        var ahead = ReadAhead()
        #expect(!parks(&ahead, read(1)), "the lending is not open")
        _ = ahead.lend(ByteQueue(ByteBuffer(string: "x")), limit: 100)
        #expect(!parks(&ahead, read(1)), "bytes are lent: the read takes them instead")
        _ = ahead.take(for: .read(minLength: 1, maxLength: 1))
        #expect(parks(&ahead, read(1)))
        #expect(ahead.hasParkedRead)
        #expect(!parks(&ahead, read(2)), "one read is parked already")
        let taken = ahead.take(for: .read(minLength: 0, maxLength: 10))
        #expect(taken == nil, "nothing is lent while a read is parked")
    }

    @Test func readsTheMachineWouldRefuseOrWhoseCallerLeftDoNotPark() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(!parks(&ahead, read(1, .read(minLength: 0, maxLength: 0))))
        #expect(!parks(&ahead, read(1, .read(minLength: 5, maxLength: 2))))
        #expect(!parks(&ahead, read(1, .readThrough(delimiter: [], maxLength: 10))))
        #expect(!parks(&ahead, read(1, .readThrough(delimiter: Array("\r\n".utf8), maxLength: 1))))
        #expect(!parks(&ahead, read(1, .closeRead)))
        #expect(!parks(&ahead, read(1, abandoned: NIOLockedValueBox(true))))
        #expect(!ahead.hasParkedRead)
        #expect(parks(&ahead, read(1, .readThrough(delimiter: Array("\n".utf8), maxLength: 1))))
    }

    @Test func bytesLentThatSatisfyTheParkedReadAreItsAndTheRestStaysLent() throws {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(parks(&ahead, read(7)))
        guard
            case .satisfied(let parked, let bytes, let resumesInput) = ahead.lend(
                ByteQueue(ByteBuffer(string: "hello")), limit: 100)
        else {
            Issue.record("the bytes satisfy the read")
            return
        }
        #expect(parked.id == OperationID(rawValue: 7))
        #expect(String(buffer: bytes) == "hel")
        #expect(!resumesInput)
        #expect(!ahead.hasParkedRead)
        #expect(ahead.isOpen)
        let rest = ahead.take(for: .read(minLength: 1, maxLength: 10))
        #expect(rest.map { String(buffer: $0.bytes) } == "lo")
    }

    @Test func bytesThatFallShortSendTheReadAndEveryLentByteToTheMachine() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(parks(&ahead, read(3, .readThrough(delimiter: Array("\n".utf8), maxLength: 100))))
        guard case .fellShort(let parked, let lent) = ahead.lend(ByteQueue(ByteBuffer(string: "ab")), limit: 100) else {
            Issue.record("no delimiter yet: the machine decides")
            return
        }
        #expect(parked.id == OperationID(rawValue: 3))
        var lentBytes = lent
        #expect(lentBytes.takeAll().map { String(buffer: $0) } == "ab")
        #expect(!ahead.isOpen, "the lending closed with the bytes given back")
        #expect(ahead.count == 0)
        #expect(!ahead.hasParkedRead)
        #expect(ahead.mayLend, "nothing is on its way: the loop lends again once the machine allows")
    }

    @Test func anOperationSubmittedSendsTheParkedReadAheadOfItself() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(parks(&ahead, read(1)))
        let first = ahead.operationSubmitted()
        #expect(first?.id == OperationID(rawValue: 1))
        #expect(!ahead.hasParkedRead)
        _ = ahead.reclaim(arriving: true)
        #expect(!ahead.mayLend, "the parked read and the operation are both on their way")
        _ = ahead.reclaim(arriving: true)
        #expect(ahead.mayLend)
        #expect(ahead.operationSubmitted() == nil, "nothing parked: nothing goes first")
    }

    @Test func theLoopTakesTheParkedReadBackWithTheLentBytes() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(parks(&ahead, read(4)))
        let (lent, parked) = ahead.reclaim(arriving: false)
        #expect(lent.isEmpty)
        #expect(parked?.id == OperationID(rawValue: 4))
        #expect(!ahead.hasParkedRead)
    }

    @Test func onlyTheReadParkedUnderAnIDIsUnparkedByIt() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        #expect(parks(&ahead, read(4)))
        #expect(ahead.unpark(OperationID(rawValue: 5)) == nil)
        #expect(ahead.hasParkedRead)
        #expect(ahead.unpark(OperationID(rawValue: 4))?.id == OperationID(rawValue: 4))
        #expect(!ahead.hasParkedRead)
    }

    @Test func theTimerIsArmedForTheEarliestDeadlineAndMovesOnToTheNext() {
        var ahead = ReadAhead()
        _ = ahead.lend(ByteQueue(), limit: 100)
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let first = ahead.park(read(1, timeout: 10, startedAt: start))
        #expect(first.armTimerAt == start + .seconds(Int64(10)))
        _ = ahead.unpark(OperationID(rawValue: 1))
        let later = ahead.park(read(2, timeout: 20, startedAt: start))
        #expect(later.parked)
        #expect(later.armTimerAt == nil, "the timer armed fires first, and moves on")
        let (expired, rearmAt) = ahead.parkTimerFired(now: start + .seconds(Int64(10)))
        #expect(expired == nil)
        #expect(rearmAt == start + .seconds(Int64(20)))
        let (expiredLater, rearmAgain) = ahead.parkTimerFired(now: start + .seconds(Int64(20)))
        #expect(expiredLater?.id == OperationID(rawValue: 2))
        #expect(rearmAgain == nil)
        #expect(!ahead.hasParkedRead)
        let sooner = ahead.park(read(3, timeout: 1, startedAt: start + .seconds(Int64(20))))
        #expect(sooner.armTimerAt == start + .seconds(Int64(21)), "the timer is disarmed: armed anew")
        _ = ahead.unpark(OperationID(rawValue: 3))
        let soonest = ahead.park(read(4, timeout: 1, startedAt: start))
        #expect(soonest.armTimerAt == start + .seconds(Int64(1)), "earlier than the timer armed")
        _ = ahead.unpark(OperationID(rawValue: 4))
        let none = ahead.park(read(5, timeout: 0, startedAt: start))
        #expect(none.parked && none.armTimerAt == nil, "no timeout, no timer")
    }
}

/// The state machine's side of lending: when it may lend, and taking the bytes back.
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

    @Test func lentBytesComeBackAheadOfWhatArrivedSince() {
        var machine = StreamTaskStateMachine()
        _ = machine.connected()
        _ = machine.received(ByteBuffer(string: "ab"))
        let lent = machine.lendBuffer()
        #expect(lent.readableBytes == 2)
        #expect(machine.bufferedByteCount == 0)
        _ = machine.received(ByteBuffer(string: "cd"))
        machine.reclaim(lent)
        let actions = machine.enqueue(.read(minLength: 4, maxLength: 4), id: OperationID(rawValue: 1))
        let read = actions.compactMap { action -> String? in
            if case .succeedRead(_, let bytes, _) = action { return String(buffer: bytes) }
            return nil
        }
        #expect(read == ["abcd"])
    }
}
