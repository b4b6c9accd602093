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

/// Which writes ask the channel for their outcome. A write nobody hears of and with no
/// deadline (`write(_:timeout:promise:)` given neither) goes as SwiftNIO's write with no
/// promise does, and a later write's confirmation stands for it; what waits for the writes in
/// flight asks for one.
@Suite struct StreamTaskStateMachineConfirmationTests {
    typealias Machine = StreamTaskStateMachine
    typealias Action = Machine.Action

    private static func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    private static func openMachine() -> Machine {
        var machine = Machine(highWaterMark: 1024)
        _ = machine.connected()
        return machine
    }

    /// The confirm flags of the writes among `actions`, in order.
    private static func confirmations(_ actions: Machine.Actions) -> [Bool] {
        actions.compactMap { if case .write(_, _, let confirm) = $0 { confirm } else { nil } }
    }

    private static func confirmationAsked(_ actions: Machine.Actions) -> OperationID? {
        actions.lazy.compactMap { if case .confirmWrites(let id) = $0 { id } else { nil } }.first
    }

    private static func silentWrite(_ machine: inout Machine, _ n: UInt64, bytes: Int = 8) -> Machine.Actions {
        machine.enqueue(.write(ByteBuffer(repeating: 1, count: bytes)), id: id(n), completion: .promise(nil))
    }

    @Test func silentWritesAskForTheirOutcomeOnlyEveryInterval() {
        var machine = Self.openMachine()
        var flags: [Bool] = []
        for n in 1...UInt64(2 * Machine.confirmationInterval) {
            flags += Self.confirmations(Self.silentWrite(&machine, n))
        }
        let confirmed = flags.indices.filter { flags[$0] }
        #expect(confirmed == [Machine.confirmationInterval - 1, 2 * Machine.confirmationInterval - 1])
        // The first confirmation stands for the writes before it; none of them is reported.
        let (actions, bytes) = machine.writesCompleted(
            through: Self.id(UInt64(Machine.confirmationInterval)), error: nil)
        #expect(bytes == 8 * Machine.confirmationInterval)
        #expect(!actions.contains { if case .succeed = $0 { true } else { false } })
        #expect(machine.writesInFlight.count == Machine.confirmationInterval)
    }

    @Test func silentWritesAskOnceTheirBytesReachTheLimit() {
        var machine = Self.openMachine()
        let size = Machine.confirmationBytes / 2 + 1
        #expect(Self.confirmations(Self.silentWrite(&machine, 1, bytes: size)) == [false])
        #expect(Self.confirmations(Self.silentWrite(&machine, 2, bytes: size)) == [true])
        #expect(machine.unconfirmedWrites == 0)
    }

    @Test func aWriteSomeoneHearsOfOrWithADeadlineAsksForItsOutcome() {
        var machine = Self.openMachine()
        let heard = machine.enqueue(
            .write(ByteBuffer(string: "a")), id: Self.id(1), completion: .handler { _ in })
        #expect(Self.confirmations(heard) == [true])
        let timed = machine.enqueue(
            .write(ByteBuffer(string: "b")), id: Self.id(2), completion: .promise(nil),
            deadline: .init(at: NIODeadline.now() + TimeAmount.seconds(Int64(5)), timeout: 5, returnedEarly: false))
        #expect(Self.confirmations(timed) == [true])
    }

    @Test func onePassConfirmsOnlyItsLastWriteForAllOfThem() {
        var machine = Self.openMachine()
        _ = machine.admit(.write(ByteBuffer(string: "a")), id: Self.id(1), completion: .promise(nil))
        _ = machine.admit(.write(ByteBuffer(string: "b")), id: Self.id(2), completion: .handler { _ in })
        _ = machine.admit(.write(ByteBuffer(string: "c")), id: Self.id(3), completion: .promise(nil))
        #expect(Self.confirmations(machine.process()) == [false, false, true])
        let (actions, _) = machine.writesCompleted(through: Self.id(3), error: nil)
        // Only the write someone hears of is reported.
        let reported = actions.compactMap { if case .succeed(let id, _) = $0 { id } else { nil } }
        #expect(reported == [Self.id(2)])
    }

    @Test func closeWriteAsksForTheUnconfirmedWritesBeforeItOnce() {
        var machine = Self.openMachine()
        for n in 1...3 { _ = Self.silentWrite(&machine, UInt64(n)) }
        let close = machine.enqueue(.closeWrite, id: Self.id(4))
        #expect(Self.confirmationAsked(close) == Self.id(3))
        #expect(close.contains { if case .flush = $0 { true } else { false } })
        #expect(!close.contains { if case .shutdownOutput = $0 { true } else { false } })
        // Another pass does not ask again.
        #expect(Self.confirmationAsked(machine.receiveCompleted()) == nil)
        let (done, _) = machine.writesCompleted(through: Self.id(3), error: nil)
        #expect(done.contains { if case .shutdownOutput = $0 { true } else { false } })
        #expect(done.contains { if case .succeed(let id, _) = $0 { id == Self.id(4) } else { false } })
    }

    @Test func closeWriteAfterConfirmedWritesAsksForNothing() {
        var machine = Self.openMachine()
        _ = machine.enqueue(.write(ByteBuffer(string: "a")), id: Self.id(1), completion: .handler { _ in })
        let close = machine.enqueue(.closeWrite, id: Self.id(2))
        #expect(Self.confirmationAsked(close) == nil)
    }

    @Test func aBarrierAsksForTheUnconfirmedWritesBeforeIt() {
        var machine = Self.openMachine()
        _ = Self.silentWrite(&machine, 1)
        let upgrade = machine.enqueue(.startTLS(.client(StreamTLSConfiguration())), id: Self.id(2))
        #expect(Self.confirmationAsked(upgrade) == Self.id(1))
        #expect(!upgrade.contains { if case .startTLS = $0 { true } else { false } })
        let (done, _) = machine.writesCompleted(through: Self.id(1), error: nil)
        #expect(done.contains { if case .startTLS = $0 { true } else { false } })
    }

    @Test func aCloseForgetsTheUnconfirmedWrites() {
        var machine = Self.openMachine()
        _ = Self.silentWrite(&machine, 1)
        #expect(machine.unconfirmedWrites == 1)
        _ = machine.closed(error: StreamTaskError(.connectionReset, "reset"))
        #expect(machine.unconfirmedWrites == 0)
        #expect(machine.writesInFlight.isEmpty)
    }
}
