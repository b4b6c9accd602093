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

/// What a pass over the queue costs when thousands of small writes wait or are in flight: a
/// writer that outruns a slow peer must not make every later operation of its task (and so its
/// event loop) slower in proportion.
@Suite struct StreamTaskStateMachineQueueCostTests {
    typealias Action = StreamTaskStateMachine.Action

    static let many = 1_000

    func id(_ n: Int) -> OperationID { OperationID(rawValue: UInt64(n)) }

    func writes(_ actions: StreamTaskStateMachine.Actions) -> [UInt64] {
        actions.compactMap {
            if case .write(let id, _, _) = $0 { return id.rawValue }
            return nil
        }
    }

    func flushes(_ actions: StreamTaskStateMachine.Actions) -> Int {
        actions.filter { if case .flush = $0 { true } else { false } }.count
    }

    func openQueue() -> StreamTaskStateMachine {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 1024)
        _ = queue.connected()
        return queue
    }

    @Test func writesQueuedBehindAFullChannelCostANewOperationNothing() {
        var queue = openQueue()
        _ = queue.writabilityChanged(false)
        var handedOn: [UInt64] = []
        for n in 1...Self.many {
            handedOn += writes(queue.enqueue(.write(ByteBuffer(string: "m")), id: id(n)))
        }
        #expect(handedOn.isEmpty, "no write goes to a channel that is not writable")
        // Each write looked at the head and itself, not at the writes before it.
        #expect(queue.operationsVisited <= 2 * Self.many)

        let before = queue.operationsVisited
        _ = queue.enqueue(.write(ByteBuffer(string: "m")), id: id(Self.many + 1))
        _ = queue.enqueue(.closeWrite, id: id(Self.many + 2))
        #expect(queue.operationsVisited - before <= 4)

        // A read queued behind them still completes from what arrives, at once.
        let read = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(Self.many + 3))
        #expect(!read.contains { if case .succeedRead = $0 { true } else { false } })
        let received = queue.receivedPass(ByteBuffer(string: "hi"))
        #expect(
            received.contains {
                if case .succeedRead(let read, _, _, _) = $0 { read == id(Self.many + 3) } else { false }
            })
    }

    @Test func writesLetGoTogetherGoOutInOrderWithOneFlush() {
        var queue = openQueue()
        _ = queue.writabilityChanged(false)
        for n in 1...Self.many {
            _ = queue.enqueue(.write(ByteBuffer(string: "m")), id: id(n))
        }
        let before = queue.operationsVisited
        let actions = queue.writabilityChanged(true)
        #expect(writes(actions) == (1...Self.many).map(UInt64.init))
        #expect(flushes(actions) == 1)
        #expect(queue.operationsVisited - before == Self.many)
        #expect(queue.writesInFlight.count == Self.many)
        #expect(queue.pending.isEmpty)
    }

    @Test func writesInFlightCostACompletionOrANewOperationNothing() {
        var queue = openQueue()
        var handedOn: [UInt64] = []
        for n in 1...Self.many {
            handedOn += writes(queue.enqueue(.write(ByteBuffer(string: "m")), id: id(n)))
        }
        #expect(handedOn == (1...Self.many).map(UInt64.init), "each write goes to the channel as it is issued")
        let before = queue.operationsVisited
        // A read, a completion in order, and a closeWrite that waits for the rest.
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(Self.many + 1))
        let completed = queue.writesCompleted(through: id(1), error: nil).actions
        #expect(completed.contains { if case .succeed(let done, _) = $0 { done == id(1) } else { false } })
        let close = queue.enqueue(.closeWrite, id: id(Self.many + 2))
        let shutDown = close.contains { if case .shutdownOutput = $0 { true } else { false } }
        #expect(!shutDown, "closeWrite waits for the writes in flight")
        #expect(queue.operationsVisited - before <= 6)

        // The last write's completion lets closeWrite go.
        for n in 2..<Self.many { _ = queue.writesCompleted(through: id(n), error: nil).actions }
        let last = queue.writesCompleted(through: id(Self.many), error: nil).actions
        #expect(last.contains { if case .shutdownOutput = $0 { true } else { false } })
        #expect(last.contains { if case .succeed(let done, _) = $0 { done == id(Self.many + 2) } else { false } })
    }

    @Test func aBarrierWaitsForTheWritesInFlightAndCancelFailsThemFirst() {
        var queue = openQueue()
        _ = queue.enqueue(.write(ByteBuffer(string: "a")), id: id(1))
        _ = queue.enqueue(.write(ByteBuffer(string: "b")), id: id(2))
        let tls = queue.enqueue(.startTLS(.client(StreamTLSConfiguration())), id: id(3))
        #expect(!tls.contains { if case .startTLS = $0 { true } else { false } }, "startTLS waits for the writes")
        _ = queue.writesCompleted(through: id(1), error: nil).actions
        let started = queue.writesCompleted(through: id(2), error: nil).actions
        #expect(started.contains { if case .startTLS(let id, _, _) = $0 { id.rawValue == 3 } else { false } })

        var other = openQueue()
        _ = other.enqueue(.read(minLength: 1, maxLength: 1), id: id(1))
        _ = other.enqueue(.write(ByteBuffer(string: "a")), id: id(2))
        _ = other.writabilityChanged(false)
        _ = other.enqueue(.write(ByteBuffer(string: "b")), id: id(3))
        let cancelled = other.cancel()
        let failed = cancelled.compactMap { if case .fail(let id, _, _) = $0 { id.rawValue } else { nil } }
        #expect(Set(failed) == [1, 2, 3])
        #expect(failed.filter { $0 != 1 } == [2, 3], "the write lane fails in the order it was issued")
        #expect(!other.hasPendingOperations)
    }
}
