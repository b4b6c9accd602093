//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
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
        let outcome1 = ahead.take(minLength: 1, maxLength: 3)
        #expect(outcome1 == nil, "nothing is lent yet")
        ahead.lend(ByteBuffer(string: "hello"), limit: 100)
        let outcome2 = ahead.take(minLength: 1, maxLength: 3)
        #expect(text(outcome2) == "hel")
        ahead.operationSubmitted()
        let outcome3 = ahead.take(minLength: 1, maxLength: 3)
        #expect(outcome3 == nil, "a read is on its way to the loop")
        let outcome4 = ahead.reclaim(arriving: true)
        #expect(outcome4.map { String(buffer: $0) } == "lo")
        #expect(ahead.count == 0)
        #expect(ahead.mayLend)
    }

    @Test func theLoopLendsOnlyOnceEveryOperationOnItsWayHasArrived() {
        var ahead = ReadAhead()
        ahead.operationSubmitted()
        ahead.operationSubmitted()
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
        ahead.lend(ByteBuffer(string: "abc"), limit: 100)
        let outcome5 = ahead.take(minLength: 4, maxLength: 10)
        #expect(outcome5 == nil, "it wants more than is lent")
        let outcome6 = ahead.take(minLength: 0, maxLength: 0)
        #expect(outcome6 == nil, "the loop reports the invalid length")
        let outcome7 = ahead.take(minLength: -1, maxLength: 2)
        #expect(outcome7 == nil)
        let outcome8 = ahead.take(through: Array("\n".utf8), maxLength: 10)
        #expect(outcome8 == nil, "no delimiter yet")
        #expect(ahead.count == 3, "a read that goes to the loop takes nothing")
        let outcome9 = ahead.take(minLength: 0, maxLength: 10)
        #expect(text(outcome9) == "abc", "a minimum of 0 takes what is there")
    }

    @Test func aDelimitedReadTakesThroughTheFirstDelimiterWithinItsMaximum() {
        var ahead = ReadAhead()
        ahead.lend(ByteBuffer(string: "PING a\r\nPING b\r\n"), limit: 100)
        let outcome10 = ahead.take(through: Array("\r\n".utf8), maxLength: 5)
        #expect(outcome10 == nil, "the delimiter ends past the maximum")
        let outcome11 = ahead.take(through: Array("\r\n".utf8), maxLength: 8)
        #expect(text(outcome11) == "PING a\r\n")
        let outcome12 = ahead.take(through: Array("\r\n".utf8), maxLength: 100)
        #expect(text(outcome12) == "PING b\r\n")
        #expect(ahead.count == 0)
    }

    @Test func lendingAddsBehindWhatIsLentAlready() {
        var ahead = ReadAhead()
        ahead.lend(ByteBuffer(string: "ab"), limit: 100)
        ahead.lend(ByteBuffer(string: "cd"), limit: 100)
        let outcome13 = ahead.take(minLength: 4, maxLength: 4)
        #expect(text(outcome13) == "abcd")
    }

    @Test func heldInputIsResumedByTheReadThatTakesTheBytesBelowTheLimit() {
        var ahead = ReadAhead()
        ahead.lend(ByteBuffer(string: "0123456789"), limit: 8)
        let outcome14 = ahead.holdsInput(buffered: -3)
        #expect(!outcome14, "under the limit, input goes on")
        let outcome15 = ahead.holdsInput(buffered: 0)
        #expect(outcome15)
        let outcome16 = ahead.take(minLength: 1, maxLength: 1)
        #expect(outcome16?.resumesInput == false, "9 bytes are still at the limit")
        let outcome17 = ahead.take(minLength: 2, maxLength: 2)
        #expect(outcome17?.resumesInput == true, "7 bytes are under it")
        let outcome18 = ahead.take(minLength: 1, maxLength: 1)
        #expect(outcome18?.resumesInput == false, "the loop is told once")
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

    @Test func lentBytesComeBackAheadOfWhatArrivedSince() throws {
        var machine = StreamTaskStateMachine()
        _ = machine.connected()
        _ = machine.received(ByteBuffer(string: "ab"))
        let lent = machine.lendBuffer()
        #expect(machine.bufferedByteCount == 0)
        _ = machine.received(ByteBuffer(string: "cd"))
        machine.reclaim(try #require(lent))
        let actions = machine.enqueue(.read(minLength: 4, maxLength: 4), id: OperationID(rawValue: 1))
        let read = actions.compactMap { action -> String? in
            if case .succeedRead(_, let bytes, _) = action { return String(buffer: bytes) }
            return nil
        }
        #expect(read == ["abcd"])
    }
}
