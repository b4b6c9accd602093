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

/// Reads that take buffered bytes at once, wherever they are issued, as steps of the machine.
@Suite struct StreamTaskStateMachineReadAtOnceTests {
    private func text(_ taken: (bytes: ByteBuffer, asksForInput: Bool)?) -> String? {
        taken.map { String(buffer: $0.bytes) }
    }

    private func connected(with bytes: String = "", highWaterMark: Int = 256 * 1024) -> StreamTaskStateMachine {
        var machine = StreamTaskStateMachine.startedForTests(highWaterMark: highWaterMark)
        _ = machine.connected()
        if !bytes.isEmpty { _ = machine.receivedPass(ByteBuffer(string: bytes)) }
        return machine
    }

    @Test func readsTakeAtOnceOnlyWhileNoOperationClaimsTheInput() {
        var machine = StreamTaskStateMachine.startedForTests()
        #expect(!machine.mayReadAtOnce, "not connected yet")
        _ = machine.connected()
        #expect(machine.mayReadAtOnce)
        _ = machine.enqueue(.write(ByteBuffer(string: "x")), id: OperationID(rawValue: 1))
        #expect(machine.mayReadAtOnce, "a write leaves the input alone")
        _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: OperationID(rawValue: 2))
        #expect(!machine.mayReadAtOnce, "a read waits for the input")
        #expect(text(machine.readAtOnce(.read(minLength: 0, maxLength: 1))) == nil, "nothing overtakes it")
        _ = machine.receivedPass(ByteBuffer(string: "y"))
        #expect(machine.mayReadAtOnce, "the read completed")
        _ = machine.suspend()
        #expect(!machine.mayReadAtOnce, "a suspended task's reads wait")
        _ = machine.resume()
        _ = machine.inputEnded()
        #expect(!machine.mayReadAtOnce, "reads at the end of the stream are the machine's")
    }

    @Test func aReadTakesWhatSatisfiesItAndLeavesTheRestInOrder() {
        var machine = connected(with: "hello")
        #expect(text(machine.readAtOnce(.read(minLength: 1, maxLength: 3))) == "hel")
        _ = machine.receivedPass(ByteBuffer(string: "!!"))
        let actions = machine.enqueue(.read(minLength: 4, maxLength: 4), id: OperationID(rawValue: 1))
        let read = actions.compactMap { action -> String? in
            if case .succeedRead(_, let bytes, _, _) = action { return String(buffer: bytes) }
            return nil
        }
        #expect(read == ["lo!!"])
    }

    @Test func aReadTheBufferCannotSatisfyAtOnceTakesNothing() {
        var machine = connected(with: "abc")
        #expect(machine.readAtOnce(.read(minLength: 4, maxLength: 10)) == nil, "it wants more than is buffered")
        #expect(machine.readAtOnce(.read(minLength: 0, maxLength: 0)) == nil, "the machine reports the invalid length")
        #expect(machine.readAtOnce(.read(minLength: -1, maxLength: 2)) == nil)
        #expect(machine.readAtOnce(.readThrough(delimiter: Array("\n".utf8), maxLength: 10)) == nil, "no delimiter yet")
        #expect(machine.bufferedByteCount == 3, "a read that is queued takes nothing here")
        #expect(
            text(machine.readAtOnce(.read(minLength: 0, maxLength: 10))) == "abc", "a minimum of 0 takes what is there")
        #expect(machine.readAtOnce(.read(minLength: 0, maxLength: 10)) == nil, "nothing is there: the read waits")
    }

    @Test func aDelimitedReadTakesThroughTheFirstDelimiterWithinItsMaximum() {
        var machine = connected(with: "PING a\r\nPING b\r\n")
        let crlf = Array("\r\n".utf8)
        #expect(machine.readAtOnce(.readThrough(delimiter: crlf, maxLength: 5)) == nil, "it ends past the maximum")
        #expect(text(machine.readAtOnce(.readThrough(delimiter: crlf, maxLength: 8))) == "PING a\r\n")
        #expect(text(machine.readAtOnce(.readThrough(delimiter: crlf, maxLength: 100))) == "PING b\r\n")
        #expect(machine.bufferedByteCount == 0)
    }

    @Test func aReadThatTakesTheBufferBelowItsLimitAsksForInputAgain() {
        var machine = connected(with: "012345", highWaterMark: 4)
        _ = machine.receiveCompleted()
        #expect(!machine.wantsInput, "the buffer is full")
        #expect(
            machine.readAtOnce(.read(minLength: 1, maxLength: 1))?.asksForInput == false, "5 bytes are over the limit")
        #expect(machine.readAtOnce(.read(minLength: 2, maxLength: 2))?.asksForInput == true, "3 are under it")
        let actions = machine.process()
        #expect(actions.contains { if case .requestInput = $0 { true } else { false } })
        #expect(
            machine.readAtOnce(.read(minLength: 1, maxLength: 1))?.asksForInput == false, "input is asked for already")
    }
}

/// The task's one timer: the deadlines live with the operations, and a firing finds what is
/// due and when to fire next.
@Suite struct StreamTaskStateMachineDeadlineTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    private func at(_ milliseconds: Int64) -> NIODeadline { start + .milliseconds(milliseconds) }

    private func timed(_ milliseconds: Int64) -> StreamTaskStateMachine.Pending.Deadline {
        .init(at: at(milliseconds), timeout: Double(milliseconds) / 1000, returnedEarly: false)
    }

    @Test func aFiringFindsWhatIsDueInOrderAndTheNextDeadline() {
        var machine = StreamTaskStateMachine.startedForTests()
        // Not connected: everything stays queued.
        _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: OperationID(rawValue: 1), deadline: timed(300))
        _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: OperationID(rawValue: 2), deadline: timed(100))
        _ = machine.enqueue(.closeRead, id: OperationID(rawValue: 3), deadline: timed(100))
        _ = machine.enqueue(.write(ByteBuffer(string: "x")), id: OperationID(rawValue: 4), deadline: timed(900))
        _ = machine.enqueue(.write(ByteBuffer(string: "y")), id: OperationID(rawValue: 5))
        let (due, next) = machine.expired(at: at(300))
        // Earliest deadline first, then the order they were issued in.
        #expect(due.map(\.id.rawValue) == [2, 3, 1])
        #expect(next == at(900))
        let (none, stillNext) = machine.expired(at: at(299 - 200))
        #expect(none.isEmpty)
        #expect(stillNext == at(100))
    }

    @Test func finishedOperationsAreNeverDue() {
        var machine = StreamTaskStateMachine.startedForTests()
        _ = machine.connected()
        _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: OperationID(rawValue: 1), deadline: timed(100))
        _ = machine.receivedPass(ByteBuffer(string: "z"))
        let (due, next) = machine.expired(at: at(1000))
        #expect(due.isEmpty)
        #expect(next == nil, "nothing is timed: the timer is not armed again")
    }

    @Test func aWriteInFlightIsTimedToo() {
        var machine = StreamTaskStateMachine.startedForTests()
        _ = machine.connected()
        _ = machine.enqueue(.write(ByteBuffer(string: "x")), id: OperationID(rawValue: 1), deadline: timed(100))
        #expect(machine.writesInFlight.count == 1)
        #expect(machine.expired(at: at(100)).due.map(\.id.rawValue) == [1])
    }
}
