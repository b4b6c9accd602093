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

/// The transitions that cannot happen stop the process; the legal ones beside each of them keep
/// working. Each trap is run in a child process (an exit test).
@Suite struct StreamTaskStateMachineTransitionTests {
    typealias Machine = StreamTaskStateMachine
    typealias Action = Machine.Action

    private static func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    private func count(_ actions: StreamTaskStateMachine.Actions, _ predicate: (Action) -> Bool) -> Int {
        actions.filter(predicate).count
    }

    private func isReadClosed(_ action: Action) -> Bool {
        if case .emit(.readClosed) = action { return true }
        return false
    }

    private func isClose(_ action: Action) -> Bool {
        if case .close = action { return true }
        return false
    }

    // MARK: Writes

    @Test func aWriteNeverHandedToTheChannelCannotComplete() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.startedForTests(highWaterMark: 1024)
            // Not connected: the write waits, unissued.
            _ = machine.enqueue(.write(ByteBuffer(string: "x")), id: Self.id(1))
            _ = machine.writesCompleted(through: Self.id(1), error: nil).actions
        }
    }

    @Test func aReadCannotCompleteAsAWrite() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: Self.id(1))
            _ = machine.writesCompleted(through: Self.id(1), error: nil).actions
        }
    }

    @Test func anIssuedWriteCompletesAndAWithdrawnOneIsIgnored() {
        var machine = Machine.connectedForTests()
        _ = machine.enqueue(.write(ByteBuffer(string: "a")), id: Self.id(1))
        let completed = machine.writesCompleted(through: Self.id(1), error: nil).actions
        #expect(
            count(completed) { if case .succeed(let id, _) = $0 { return id == Self.id(1) } else { return false } } == 1
        )
        // Already done (or withdrawn by a timeout): a late report changes nothing.
        #expect(machine.writesCompleted(through: Self.id(1), error: nil).actions.isEmpty)
        #expect(!machine.hasPendingOperations)
    }

    // MARK: TLS transitions

    @Test func aReadCannotCompleteAsATLSTransition() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: Self.id(1))
            _ = machine.tlsTransitionCompleted(Self.id(1), error: nil)
        }
    }

    @Test func aTLSTransitionQueuedBehindAReadCannotCompleteBeforeItStarted() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.enqueue(.read(minLength: 1, maxLength: 1), id: Self.id(1))
            _ = machine.enqueue(.stopTLS, id: Self.id(2))
            _ = machine.tlsTransitionCompleted(Self.id(2), error: nil)
        }
    }

    @Test func aStartedTLSTransitionCompletesAndAnUnknownOneIsIgnored() {
        var machine = Machine.connectedForTests()
        let started = machine.enqueue(.stopTLS, id: Self.id(1))
        #expect(count(started) { if case .stopTLS = $0 { return true } else { return false } } == 1)
        #expect(machine.tlsTransitionCompleted(Self.id(9), error: nil).isEmpty)
        let done = machine.tlsTransitionCompleted(Self.id(1), error: nil)
        #expect(count(done) { if case .succeed = $0 { return true } else { return false } } == 1)
        #expect(machine.isConnected)
    }

    // MARK: The connection's life

    @Test func bytesCannotArriveBeforeTheConnection() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.startedForTests(highWaterMark: 1024)
            _ = machine.receivedPass(ByteBuffer(string: "early"))
        }
    }

    @Test func theInputCannotEndBeforeTheConnection() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.startedForTests(highWaterMark: 1024)
            _ = machine.inputEnded()
        }
    }

    @Test func aConnectionCannotComeUpTwice() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.connected()
        }
    }

    @Test func aCancelledMachineIgnoresTheChannelThatWasComingUp() {
        var machine = Machine.startedForTests(highWaterMark: 1024)
        _ = machine.cancel()
        #expect(machine.connected().isEmpty)
        #expect(machine.receivedPass(ByteBuffer(string: "late")).isEmpty)
        #expect(machine.bufferedByteCount == 0)
        #expect(machine.closeError?.code == .cancelled)
    }

    @Test func bothDirectionsDoneAsksForTheCloseOnce() {
        var machine = Machine.connectedForTests()
        _ = machine.inputEnded()
        let closing = machine.enqueue(.closeWrite, id: Self.id(1))
        #expect(count(closing, isClose) == 1)
        #expect(machine.connection == .closing)
        // Still connected as far as operations go, and nothing asks for the close again.
        #expect(machine.isConnected)
        #expect(count(machine.writabilityChanged(true), isClose) == 0)
        #expect(count(machine.receiveCompleted(), isClose) == 0)
        let closed = machine.closed(error: nil)
        #expect(count(closed, isClose) == 0)
        #expect(machine.connection == .closed(nil))
    }

    // MARK: The read side's close is reported once

    @Test func closeReadAfterACleanEndReportsNothingMore() {
        var machine = Machine.connectedForTests()
        #expect(count(machine.inputEnded(), isReadClosed) == 1)
        let closing = machine.enqueue(.closeRead, id: Self.id(1))
        #expect(count(closing, isReadClosed) == 0)
        #expect(machine.input == .shutDown)
    }

    @Test func closeReadAfterATruncatedEndReportsTheClose() {
        var machine = Machine.connectedForTests()
        let truncation = StreamTaskError(.tlsTruncated, "cut")
        #expect(count(machine.inputEnded(truncation: truncation), isReadClosed) == 0)
        #expect(count(machine.enqueue(.closeRead, id: Self.id(1)), isReadClosed) == 1)
    }

    @Test func anEndAfterCloseReadIsNotReportedAgain() {
        var machine = Machine.connectedForTests()
        let closing = machine.enqueue(.closeRead, id: Self.id(1))
        #expect(count(closing, isReadClosed) == 1)
        #expect(count(closing) { if case .shutdownInput = $0 { return true } else { return false } } == 1)
        #expect(machine.inputEnded().isEmpty)
        #expect(count(machine.closed(error: nil), isReadClosed) == 0)
    }

    @Test func anOrderlyCloseEndsTheInputAndReportsIt() {
        var machine = Machine.connectedForTests()
        _ = machine.receivedPass(ByteBuffer(string: "tail"))
        #expect(count(machine.closed(error: nil), isReadClosed) == 1)
        let read = machine.enqueue(.read(minLength: 1, maxLength: 10), id: Self.id(1))
        let outcome = read.compactMap { action -> (String, Bool)? in
            if case .succeedRead(_, let bytes, let atEOF, _) = action { return (String(buffer: bytes), atEOF) }
            return nil
        }
        #expect(outcome.map(\.0) == ["tail"])
        #expect(outcome.map(\.1) == [true])
    }

    // MARK: Suspension

    @Test func aSuspendedMachineCannotBeSuspendedAgain() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.suspend()
            _ = machine.suspend()
        }
    }

    @Test func aRunningMachineCannotBeResumed() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.resume()
        }
    }

    @Test func suspendAndResumeAlternateAndAClosedMachineMayStillBeSuspended() {
        var machine = Machine.connectedForTests()
        #expect(machine.suspend().isEmpty)
        #expect(machine.holdsOperations)
        _ = machine.resume()
        _ = machine.suspend()
        _ = machine.closed(error: nil)
        #expect(!machine.holdsOperations, "a closed connection holds nothing back")
        _ = machine.resume()
        // The owner may still suspend a machine whose connection closed before it completed.
        #expect(machine.suspend().isEmpty)
    }

    // MARK: Lanes

    @Test func closeQueuedRefusesLaterOperationsOfItsLaneOnly() {
        var machine = Machine.startedForTests(highWaterMark: 1024)
        _ = machine.enqueue(.closeWrite, id: Self.id(1))
        _ = machine.enqueue(.closeRead, id: Self.id(2))
        #expect(machine.output == .closeQueued)
        #expect(machine.input == .closeQueued)
        let refusedWrite = machine.enqueue(.write(ByteBuffer(string: "x")), id: Self.id(3))
        let refusedRead = machine.enqueue(.read(minLength: 1, maxLength: 1), id: Self.id(4))
        let codes = (refusedWrite + refusedRead).compactMap { action -> StreamTaskError.Code? in
            if case .fail(_, let error, _) = action { return error.code }
            return nil
        }
        #expect(codes == [.writeClosed, .readClosed])
        // A barrier is no lane's: it still queues.
        #expect(machine.enqueue(.stopTLS, id: Self.id(5)).isEmpty)
    }

    @Test func aFullChannelHoldsWritesButNotReads() {
        var machine = Machine.connectedForTests()
        _ = machine.writabilityChanged(false)
        #expect(machine.writability == .full)
        let held = machine.enqueue(.write(ByteBuffer(string: "x")), id: Self.id(1))
        #expect(count(held) { if case .write = $0 { return true } else { return false } } == 0)
        _ = machine.receivedPass(ByteBuffer(string: "y"))
        let read = machine.enqueue(.read(minLength: 1, maxLength: 1), id: Self.id(2))
        #expect(count(read) { if case .succeedRead = $0 { return true } else { return false } } == 1)
        let resumed = machine.writabilityChanged(true)
        #expect(count(resumed) { if case .write = $0 { return true } else { return false } } == 1)
        #expect(count(resumed) { if case .flush = $0 { return true } else { return false } } == 1)
    }
}
