//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
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

    /// The confirm flags of the writes among `actions`, in order.
    private static func confirmations(_ actions: Machine.Actions) -> [Bool] {
        actions.compactMap { if case .write(_, _, let confirm) = $0 { confirm } else { nil } }
    }

    private static func confirmationAsked(_ actions: Machine.Actions) -> OperationID? {
        actions.lazy.compactMap { if case .confirmWrites(let id) = $0 { id } else { nil } }.first
    }

    /// Parks a writer for room in the machine's write ledger, as an async write past the
    /// ledger's limit does, runs `body`, then takes the writer away and lets its caller go.
    private static func withAWriterWaitingForRoom(
        in machine: inout Machine, _ body: (inout Machine) -> Void
    ) async {
        try? await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let waiter = RoomWaiter(
                id: id(99), buffer: ByteBuffer(string: "w"), timeout: 0, startedAt: .now(),
                abandoned: NIOLockedValueBox(false), waitsForOutcome: NIOLockedValueBox(false),
                continuation: continuation)
            machine.writeBehind.park(waiter, id: id(99), count: 1)
            body(&machine)
            _ = machine.writeBehind.withdraw(id(99))
            continuation.resume()
        }
    }

    private static func silentWrite(_ machine: inout Machine, _ n: UInt64, bytes: Int = 8) -> Machine.Actions {
        machine.enqueue(.write(ByteBuffer(repeating: 1, count: bytes)), id: id(n), completion: .promise(nil))
    }

    @Test func silentWritesAskForTheirOutcomeOnlyEveryInterval() {
        var machine = Machine.connectedForTests()
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
        var machine = Machine.connectedForTests()
        let size = Machine.confirmationBytes / 2 + 1
        #expect(Self.confirmations(Self.silentWrite(&machine, 1, bytes: size)) == [false])
        #expect(Self.confirmations(Self.silentWrite(&machine, 2, bytes: size)) == [true])
        #expect(machine.unconfirmedWrites == 0)
    }

    @Test func aWriteSomeoneHearsOfOrWithADeadlineAsksForItsOutcome() {
        var machine = Machine.connectedForTests()
        let heard = machine.enqueue(
            .write(ByteBuffer(string: "a")), id: Self.id(1), completion: .handler { _ in })
        #expect(Self.confirmations(heard) == [true])
        let timed = machine.enqueue(
            .write(ByteBuffer(string: "b")), id: Self.id(2), completion: .promise(nil),
            deadline: .init(at: NIODeadline.now() + TimeAmount.seconds(Int64(5)), timeout: 5, returnedEarly: false))
        #expect(Self.confirmations(timed) == [true])
    }

    @Test func onePassConfirmsOnlyItsLastWriteForAllOfThem() {
        var machine = Machine.connectedForTests()
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
        var machine = Machine.connectedForTests()
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
        var machine = Machine.connectedForTests()
        _ = machine.enqueue(.write(ByteBuffer(string: "a")), id: Self.id(1), completion: .handler { _ in })
        let close = machine.enqueue(.closeWrite, id: Self.id(2))
        #expect(Self.confirmationAsked(close) == nil)
    }

    @Test func aBarrierAsksForTheUnconfirmedWritesBeforeIt() {
        var machine = Machine.connectedForTests()
        _ = Self.silentWrite(&machine, 1)
        let upgrade = machine.enqueue(.startTLS(.client(StreamTLSConfiguration())), id: Self.id(2))
        #expect(Self.confirmationAsked(upgrade) == Self.id(1))
        #expect(!upgrade.contains { if case .startTLS = $0 { true } else { false } })
        let (done, _) = machine.writesCompleted(through: Self.id(1), error: nil)
        #expect(done.contains { if case .startTLS = $0 { true } else { false } })
    }

    @Test func writesOnlyTheLedgerHearsOfWaitUntilAWriterWaitsForRoom() async {
        var machine = Machine.connectedForTests()
        let ledger = StreamTask(
            session: StreamSession(), identifier: 1, host: "127.0.0.1", port: 1, origin: .accepted,
            eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        for n in 1...3 {
            let actions = machine.enqueue(
                .write(ByteBuffer(string: "a")), id: Self.id(UInt64(n)),
                completion: .writeBehind(count: 1, of: ledger))
            #expect(Self.confirmations(actions) == [false])
        }
        #expect(!machine.roomWaitersNeedAPass)
        // A writer parks for room: the writes that returned are confirmed by the next pass.
        await Self.withAWriterWaitingForRoom(in: &machine) { machine in
            #expect(machine.roomWaitersNeedAPass)
            let pass = machine.process()
            #expect(Self.confirmationAsked(pass) == Self.id(3))
            // Their outcomes go to the ledger, which counts them out.
            let (done, _) = machine.writesCompleted(through: Self.id(3), error: nil)
            #expect(done.count { if case .succeed = $0 { true } else { false } } == 3)
        }
    }

    @Test func whileWritersWaitForRoomEveryWriteHandedOverIsConfirmed() async {
        var machine = Machine.connectedForTests()
        await Self.withAWriterWaitingForRoom(in: &machine) { machine in
            // Nothing in flight: no pass is needed now, but each write handed over asks.
            #expect(!machine.roomWaitersNeedAPass)
            for n in 1...3 {
                let write = Self.silentWrite(&machine, UInt64(n))
                #expect(Self.confirmations(write) == [true])
            }
        }
        // Once none waits, they go unconfirmed again.
        let write = Self.silentWrite(&machine, 4)
        #expect(Self.confirmations(write) == [false])
    }

    @Test func aSuspendedTaskAsksForNothing() async {
        var machine = Machine.connectedForTests()
        _ = Self.silentWrite(&machine, 1)
        _ = machine.suspend()
        await Self.withAWriterWaitingForRoom(in: &machine) { machine in
            let pass = machine.process()
            #expect(Self.confirmationAsked(pass) == nil)
        }
    }

    @Test func aCloseForgetsTheUnconfirmedWrites() {
        var machine = Machine.connectedForTests()
        _ = Self.silentWrite(&machine, 1)
        #expect(machine.unconfirmedWrites == 1)
        _ = machine.closed(error: StreamTaskError(.connectionReset, "reset"))
        #expect(machine.unconfirmedWrites == 0)
        #expect(machine.writesInFlight.isEmpty)
    }
}
