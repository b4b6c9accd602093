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
import StreamTaskKit

/// The way out to one client: writes that never wait, and a count of the bytes not yet handed
/// to the kernel, so that a client that stops reading is dropped at the send-queue limit
/// instead of slowing whoever writes to it.
///
/// Between the two, a client that reads, only slower than it is sent to, slows the senders
/// instead of being dropped: past half the limit (``State/highWater``) the queue is *congested*, and
/// the connection whose line made it so waits in ``waitForRoom(stallTimeout:)`` before it reads
/// more, until the queue is down to a quarter of the limit. A client whose queue does not get
/// there within the stall timeout reads too slowly (or not at all): it is marked stalled and
/// slows no one any more, and it is dropped when its queue passes the limit.
///
/// Lines are queued and written together: the server flushes each outbound once it has handled
/// what one read brought (ngIRCd writes once per pass of its loop), at most one write is with
/// the task at a time, and lines queued meanwhile go out in the next. Every write is a system
/// call, so under load this turns many small writes into a few larger ones. Writes complete on
/// the task's event loop, which hands the next batch over without a trip through the
/// delegate queue (see Benchmarks/FINDINGS.md).
final class ChatOutbound: Sendable {
    let task: StreamTask
    private struct State {
        /// The most bytes queued before the client is dropped.
        var limit: Int
        /// The queue length past which the outbound is congested: half the limit.
        var highWater: Int { limit / 2 }
        /// The queue length a congested outbound must drain to before its senders go on.
        var lowWater: Int { limit / 4 }
        /// Bytes given to the task; what the task has not yet sent of them is the queue.
        var submitted: Int64 = 0
        /// What the task had sent when last asked. The queue is at most `submitted` minus
        /// this, so the task is asked again only when that bound would pass the limit.
        var sentSeen: Int64 = 0
        var closed = false
        /// Set by ``enqueueLast(_:)``: lines queued later are ignored, but what is queued is
        /// still written.
        var sealed = false
        /// Whether a write is with the task now.
        var writing = false
        /// Lines queued and not yet handed to the task, in order.
        var gathered = ByteBuffer()
        /// Completed with `true` when the outbound becomes idle, or `false` when its wait
        /// times out; whoever takes it out of the state completes it.
        var idleWaiter: EventLoopPromise<Bool>?
        /// Senders waiting in ``waitForRoom(stallTimeout:)``, completed together.
        var roomWaiters: [EventLoopPromise<Void>] = []
        /// While senders wait: the stall check.
        var stallCheck: Scheduled<Void>?
        /// Did not drain to ``State/lowWater`` within a stall timeout: slows no one until it does.
        var stalled = false

        /// Whether a write is with the task, or lines wait for one.
        var isBusy: Bool { writing || (!closed && gathered.readableBytes > 0) }

        /// The idle waiter, if the outbound is idle now and one waits.
        mutating func takeIdleWaiterIfIdle() -> EventLoopPromise<Bool>? {
            guard !isBusy else { return nil }
            defer { idleWaiter = nil }
            return idleWaiter
        }

        /// The gathered lines, leaving a fresh buffer in their place: the one taken goes to
        /// the task, and appending to it would copy it.
        mutating func takeGathered() -> ByteBuffer {
            defer { gathered = ByteBuffer() }
            return gathered
        }
    }
    private let state: NIOLockedValueBox<State>

    init(task: StreamTask, limit: Int) {
        self.task = task
        self.state = NIOLockedValueBox(State(limit: limit))
    }

    /// The most bytes queued before the client is dropped.
    var limit: Int { state.withLockedValue { $0.limit } }

    /// Lets the queue grow to `limit`: a server link carries a whole network's burst.
    func raiseLimit(to limit: Int) {
        state.withLockedValue { $0.limit = max($0.limit, limit) }
    }

    /// Bytes queued and not yet handed to the kernel. (The task counts what it sent on its
    /// event loop, so this is exact however busy the rest of the process is.)
    var pendingBytes: Int { state.withLockedValue { queuedBytes($0) } }

    /// Bytes given to the task that it has not sent yet, with `state` locked.
    private func queuedBytes(_ state: State) -> Int {
        Int(state.submitted - task.countOfBytesSent)
    }

    /// What ``enqueue(_:)`` did.
    enum Enqueued {
        /// Nothing was queued: the limit would be passed, and the caller drops the client.
        case overLimit
        /// Queued behind lines that a write or a ``flush()`` will take.
        case queued
        /// Queued, and nothing takes it until ``flush()`` is called.
        case needsFlush
        /// Queued behind the write under way, and the queue is past ``State/highWater``: the sender
        /// should ``waitForRoom(stallTimeout:)`` before it sends more.
        case congested
    }

    /// Queues `bytes` without writing them, so that several lines can go out in one write; see
    /// ``Enqueued`` for what to do next. Writes to a closed outbound are ignored.
    func enqueue(_ bytes: [UInt8]) -> Enqueued {
        append(bytes, sealing: false)
    }

    /// Queues `bytes` under the lock, then with `sealing` ignores every later line: in the same
    /// lock, so that nothing (a PING from the connection, say) can come between.
    private func append(_ bytes: [UInt8], sealing: Bool) -> Enqueued {
        let count = bytes.count
        return state.withLockedValue { state -> Enqueued in
            if state.closed || state.sealed { return .queued }
            if sealing { state.sealed = true }
            if Int(state.submitted - state.sentSeen) + count > state.limit {
                state.sentSeen = task.countOfBytesSent
                if Int(state.submitted - state.sentSeen) + count > state.limit { return .overLimit }
            }
            state.submitted += Int64(count)
            let first = state.gathered.readableBytes == 0
            state.gathered.writeBytes(bytes)
            if first && !state.writing { return .needsFlush }
            if !state.stalled, Int(state.submitted - state.sentSeen) > state.highWater {
                state.sentSeen = task.countOfBytesSent
                if Int(state.submitted - state.sentSeen) > state.highWater { return .congested }
            }
            return .queued
        }
    }

    /// Queues `bytes` as ``enqueue(_:)`` does, as the last line: later ones are ignored.
    func enqueueLast(_ bytes: [UInt8]) -> Enqueued {
        append(bytes, sealing: true)
    }

    /// Writes what is queued, unless a write is with the task already (what it gathers follows
    /// when that write completes).
    ///
    /// The lines are taken on the task's event loop, when it gets to them, not here: what the
    /// server queues meanwhile goes out in the same write. The busier the loop, the more each
    /// write carries, as ngIRCd's writes once per pass of its loop do.
    func flush() {
        if beginFlush() { task.eventLoop.execute { self.writeGathered() } }
    }

    /// Writes what is queued of each of `outbounds`, as ``flush()`` does for one, with one
    /// hop to each event loop rather than one per outbound.
    static func flush(_ outbounds: [ChatOutbound]) {
        var byLoop: [(loop: any EventLoop, outbounds: [ChatOutbound])] = []
        for outbound in outbounds where outbound.beginFlush() {
            let loop = outbound.task.eventLoop
            if let index = byLoop.firstIndex(where: { $0.loop === loop }) {
                byLoop[index].outbounds.append(outbound)
            } else {
                byLoop.append((loop, [outbound]))
            }
        }
        for (loop, outbounds) in byLoop {
            loop.execute {
                for outbound in outbounds { outbound.writeGathered() }
            }
        }
    }

    /// Marks a write as under way if one is due (something is queued, none is under way);
    /// the caller then has ``writeGathered(after:)`` run on the task's event loop.
    private func beginFlush() -> Bool {
        state.withLockedValue { state -> Bool in
            guard !state.closed, !state.writing, state.gathered.readableBytes > 0 else { return false }
            state.writing = true
            return true
        }
    }

    /// On the task's event loop: hands what is gathered to the task, or stops writing when
    /// nothing is (or the outbound is closed, or the last write failed).
    ///
    /// A write the socket takes at once completes before the loop moves on, and the next one
    /// starts from its completion; `chained` counts those, and after ``writesPerTurn`` the
    /// next waits its turn behind the loop's other work, so that a client the server keeps
    /// feeding cannot hold its loop (as SwiftNIO bounds its own write spinning).
    private func writeGathered(after failure: Bool = false, chained: Int = 0) {
        let (batch, idle, room) = state.withLockedValue {
            state -> (ByteBuffer?, EventLoopPromise<Bool>?, [EventLoopPromise<Void>]) in
            let room = takeRoomWaitersIfDrained(&state)
            guard !failure, !state.closed, state.gathered.readableBytes > 0 else {
                state.writing = false
                return (nil, state.takeIdleWaiterIfIdle(), room)
            }
            return (state.takeGathered(), nil, room)
        }
        idle?.succeed(true)
        for waiter in room { waiter.succeed() }
        guard let batch else { return }
        let promise = task.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { result in
            if case .failure = result {
                self.writeGathered(after: true)
            } else if chained + 1 < Self.writesPerTurn {
                self.writeGathered(chained: chained + 1)
            } else {
                self.task.eventLoop.execute { self.writeGathered() }
            }
        }
        task.write(batch, timeout: 0, promise: promise)
    }

    /// How many writes may follow one another on the loop before the next waits its turn.
    static let writesPerTurn = 16

    /// Queues `bytes` and writes them (or gathers them behind the write under way). Returns
    /// `false` when that would pass the limit: nothing is queued and the caller drops the client.
    func send(_ bytes: [UInt8]) -> Bool {
        switch enqueue(bytes) {
        case .overLimit: return false
        case .needsFlush: flush()
        case .queued, .congested: break
        }
        return true
    }

    /// Waits (at most `timeout`) until no write is with the task and nothing is gathered, so
    /// that a barrier queued next on the task, such as STARTTLS, comes after every reply sent
    /// before it. Returns whether it got there.
    ///
    /// It is told when the last write completes (or when the outbound closes), not by polling.
    /// One caller waits at a time: the connection, before its handshake.
    func waitUntilIdle(timeout: Duration = .seconds(10)) async -> Bool {
        let loop = task.eventLoop
        let waiter = state.withLockedValue { state -> EventLoopPromise<Bool>? in
            guard state.isBusy else { return nil }
            let waiter = state.idleWaiter ?? loop.makePromise()
            state.idleWaiter = waiter
            return waiter
        }
        guard let waiter else { return true }
        let timer = loop.scheduleTask(in: TimeAmount(timeout)) {
            // This wait's waiter only: a timer that fires as its wait ends must not answer the next.
            let expired = self.state.withLockedValue { state -> EventLoopPromise<Bool>? in
                guard let current = state.idleWaiter, current.futureResult === waiter.futureResult else { return nil }
                state.idleWaiter = nil
                return current
            }
            expired?.succeed(false)
        }
        defer { timer.cancel() }
        return (try? await waiter.futureResult.get()) ?? false
    }

    /// Waits until the queue is down to ``State/lowWater`` (or the outbound closes), so that a sender
    /// whose line found it ``Enqueued/congested`` sends no more until the client catches up.
    ///
    /// No client is waited for longer than `stallTimeout` from the first wait: one whose queue
    /// is not down to ``State/lowWater`` by then reads too slowly to hold the others back (or not at
    /// all). It is marked stalled, every sender waiting goes on, and from then on its queue is
    /// never congested (it is dropped at the limit) until it drains. So a client that reads a
    /// trickle cannot slow a channel to its pace. Wake-ups come from write completions and the
    /// stall check, not from polling.
    func waitForRoom(stallTimeout: Duration) async {
        let loop = task.eventLoop
        let waiter = state.withLockedValue { state -> EventLoopPromise<Void>? in
            guard !state.closed, !state.stalled, queuedBytes(state) > state.lowWater else {
                return nil
            }
            let waiter = loop.makePromise(of: Void.self)
            state.roomWaiters.append(waiter)
            if state.stallCheck == nil {
                state.stallCheck = armStallCheck(after: stallTimeout)
            }
            return waiter
        }
        try? await waiter?.futureResult.get()
    }

    /// Schedules the stall check: a queue that is not down to ``State/lowWater`` when it fires
    /// (which cancels it) belongs to a client that is stalled, and the waiting senders go on.
    private func armStallCheck(after stallTimeout: Duration) -> Scheduled<Void> {
        task.eventLoop.scheduleTask(in: TimeAmount(stallTimeout)) {
            let released = self.state.withLockedValue { state -> [EventLoopPromise<Void>] in
                guard state.stallCheck != nil else { return [] }
                state.stalled = true
                state.stallCheck = nil
                defer { state.roomWaiters = [] }
                return state.roomWaiters
            }
            for waiter in released { waiter.succeed() }
        }
    }

    /// The waiting senders, when the queue is down to ``State/lowWater`` (or closed): they are taken
    /// out of the state, with the stall check, and a stalled client that drained counts again.
    private func takeRoomWaitersIfDrained(_ state: inout State) -> [EventLoopPromise<Void>] {
        // Every write passes here: with no one waiting and no stall to lift, there is nothing
        // to do, and the task's count is not worth asking for.
        if state.roomWaiters.isEmpty && !state.stalled { return [] }
        guard state.closed || queuedBytes(state) <= state.lowWater else { return [] }
        state.stalled = false
        state.stallCheck?.cancel()
        state.stallCheck = nil
        defer { state.roomWaiters = [] }
        return state.roomWaiters
    }

    /// Whether a ``waitUntilIdle(timeout:)`` is waiting now (for tests).
    var hasIdleWaiter: Bool { state.withLockedValue { $0.idleWaiter != nil } }

    /// Stops sending: later ``send(_:)`` calls are ignored. Returns whether it was open.
    @discardableResult
    func markClosed() -> Bool {
        close() != nil
    }

    /// Stops sending, and returns the lines gathered but not yet handed to the task (`nil` when
    /// it was closed already). Written before a last line, they keep their order: the write
    /// with the task, if any, goes first.
    func takeUnsentAndClose() -> Data? {
        close().map { Data($0.readableBytesView) }
    }

    /// Marks the outbound closed and takes what was gathered; `nil` when it was closed already.
    private func close() -> ByteBuffer? {
        let (unsent, idle, room) = state.withLockedValue {
            state -> (ByteBuffer?, EventLoopPromise<Bool>?, [EventLoopPromise<Void>]) in
            if state.closed { return (nil, nil, []) }
            state.closed = true
            return (state.takeGathered(), state.takeIdleWaiterIfIdle(), takeRoomWaitersIfDrained(&state))
        }
        idle?.succeed(true)
        for waiter in room { waiter.succeed() }
        return unsent
    }

    /// Closes at once, dropping whatever is queued.
    func abort() {
        markClosed()
        task.cancel()
    }
}
