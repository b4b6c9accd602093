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

/// The task's life (`StreamTaskStateMachine.Life`), driven as a value: the one record from which
/// the task's `state` and `error` are read.
@Suite struct StreamTaskStateMachineLifeTests {
    typealias Machine = StreamTaskStateMachine

    private func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    @Test func aNewTaskIsSuspendedUntilItStartsAndStartsOnce() {
        var machine = Machine()
        #expect(machine.taskState == .suspended)
        #expect(!machine.hasStarted)
        #expect(!machine.isRunning)
        let started = machine.start()
        #expect(started)
        #expect(machine.taskState == .running)
        #expect(machine.isRunning)
        let startedAgain = machine.start()
        #expect(!startedAgain, "a started task does not start again")
    }

    @Test func suspendAndResumeChangeTheStateAsTheyReturn() {
        var machine = Machine.connectedForTests()
        _ = machine.suspend()
        #expect(machine.taskState == .suspended)
        #expect(machine.hasStarted)
        #expect(!machine.isRunning)
        _ = machine.resume()
        #expect(machine.taskState == .running)
    }

    @Test func cancelMarksEveryLivingTaskCancellingAndKeepsOperationsWhereTheyWere() {
        var created = Machine()
        created.cancelIssued()
        #expect(created.taskState == .canceling)
        let cancelledStarts = created.start()
        #expect(!cancelledStarts, "a cancelled task never starts")

        var suspended = Machine.connectedForTests()
        _ = suspended.suspend()
        let queued = suspended.enqueue(.write(ByteBuffer(string: "x")), id: id(1))
        #expect(queued.isEmpty)
        suspended.cancelIssued()
        #expect(suspended.taskState == .canceling)
        #expect(suspended.holdsOperations, "until the loop cancels, what was held stays held")
        let pass = suspended.process()
        #expect(pass.isEmpty)
    }

    @Test func aRefusedTaskIsBornCompletedAndNeverStarts() {
        var machine = Machine()
        machine.refuse(StreamTaskError(.invalidArgument, "no such scheme"))
        #expect(machine.taskState == .completed)
        #expect(machine.closeError?.code == .invalidArgument, "its connection reads as closed with the refusal")
        #expect(machine.closed(error: nil).isEmpty)
        #expect(machine.taskError?.code == .invalidArgument)
        #expect(!machine.hasStarted, "whoever starts tasks on first use still hears of the refusal")
        let started = machine.start()
        #expect(!started)
    }

    @Test func aCompletedTaskKeepsTheErrorItsConnectionClosedWith() {
        var machine = Machine.connectedForTests()
        _ = machine.closed(error: StreamTaskError(.connectionReset, "reset"))
        #expect(machine.taskError == nil, "the task completes after its connection closes")
        machine.complete()
        #expect(machine.taskState == .completed)
        #expect(machine.taskError?.code == .connectionReset)
        machine.cancelIssued()
        #expect(machine.taskState == .completed, "cancel does nothing to a completed task")
    }

    @Test func capturedStreamsCompleteTheTaskAndTheirCloseIsNotTheTasks() {
        var machine = Machine.connectedForTests()
        let actions = machine.enqueue(.captureStreams, id: id(1))
        #expect(actions.contains { if case .captureStreams = $0 { true } else { false } })
        #expect(machine.taskState == .completed)
        #expect(machine.streamsCaptured)
        _ = machine.closed(error: StreamTaskError(.connectionReset, "reset"))
        machine.complete()
        #expect(machine.taskState == .completed)
        #expect(machine.taskError == nil, "the streams' connection ended after the task had completed")
        machine.cancelIssued()
        #expect(machine.streamsCaptured, "cancel does nothing to a task whose streams were captured")
    }

    // MARK: What cannot happen

    @Test func aTaskCannotCompleteTwice() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            machine.complete()
            machine.complete()
        }
    }

    @Test func aTaskThatRanCannotBeRefused() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            machine.refuse(StreamTaskError(.invalidArgument, "too late"))
        }
    }

    @Test func aTaskCannotCompleteWithItsConnectionUp() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            machine.complete()
        }
    }

    @Test func aTaskThatWasNotStartedCannotConnect() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            _ = machine.connected()
        }
    }

    @Test func aTaskThatWasNotStartedCannotBeSuspended() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            _ = machine.suspend()
        }
    }

    @Test func aCancellingTaskCannotBeResumed() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.suspend()
            machine.cancelIssued()
            _ = machine.resume()
        }
    }

    @Test func streamsCannotBeCapturedFromACompletedTask() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.connectedForTests()
            _ = machine.closed(error: nil)
            machine.complete()
            machine.handOverToStreams()
        }
    }
}
