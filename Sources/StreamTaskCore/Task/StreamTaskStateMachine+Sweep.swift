//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskStateMachine {
    /// What one pass over the pending operations has found so far.
    struct Sweep {
        /// How far the read lane can move in this pass.
        enum ReadLane {
            case free
            /// The first waiting read needs this many bytes buffered before it can complete.
            case waiting(bytesWanted: Int)
            /// A barrier, or a connection not up yet, holds the lane.
            case blocked
        }

        /// How far the write lane can move in this pass.
        enum WriteLane {
            case free
            /// Writes are with the channel; more may join them, but `closeWrite` waits.
            case inFlight
            /// A barrier, a full channel or a connection not up yet holds the lane.
            case blocked
        }

        var reads = ReadLane.free
        var writes = WriteLane.free
        var writesIssued = 0
        /// Where the last write this pass handed to the channel is among ``actions``.
        var lastWrite: Int?
        /// Whether a write this pass handed over awaits its outcome.
        var writesAwaitOutcome = false
        /// Whether the pass asked for the writes in flight to be confirmed (then no write
        /// follows in it: what waits for them holds the write lane).
        var confirmationAsked = false
        var actions = Actions()

        var writesBlocked: Bool {
            if case .blocked = writes { return true }
            return false
        }

        mutating func blockReads(wanting bytes: Int? = nil) {
            guard case .free = reads else { return }
            reads = bytes.map { .waiting(bytesWanted: $0) } ?? .blocked
        }

        mutating func blockWrites() {
            writes = .blocked
        }

        mutating func noteWriteInFlight() {
            if case .free = writes { writes = .inFlight }
        }

        var readsMove: Bool {
            if case .free = reads { return true }
            return false
        }

        var bytesWanted: Int {
            if case .waiting(let bytes) = reads { return bytes }
            return 0
        }
    }

    /// What a step did with the operation it looked at.
    enum Step {
        /// It stays queued (waiting, or under way).
        case stays
        /// A write handed to the channel: it joins the writes in flight.
        case issued
        /// It completed (its outcome is among the actions) and leaves the queue.
        case done
        /// The step closed the connection and the pass is over.
        case stop
    }

    /// The connection as one operation sees it.
    enum Reach {
        /// Not up yet: the operation waits.
        case waiting
        case connected
        /// Closed, in order (`nil`) or with an error.
        case gone(StreamTaskError?)
    }

    var reach: Reach {
        switch connection {
        case .notConnected: return .waiting
        case .open, .closing: return .connected
        case .closed(let error): return .gone(error)
        }
    }

    /// Moves every operation that can move, in order (none while suspended), then asks the
    /// channel for input or for the close as the new state calls for.
    ///
    /// The pass ends early once nothing further can move: past the head, with the write lane
    /// blocked and the read lane either blocked too or with nothing left in it. (Everything
    /// left then waits: writes and `closeWrite` for the write lane, reads and `closeRead` for
    /// the read lane, barriers for the head.) So a queue of writes behind a full channel costs
    /// a pass nothing.
    mutating func process() -> Actions {
        undecidedFrom = nil
        defer { passEnded() }
        var sweep = Sweep()
        if !writesInFlight.isEmpty { sweep.noteWriteInFlight() }
        var index = 0
        // Operations before `index` that stayed and claim input.
        var claimingStayed = 0
        while index < pending.count, !holdsOperations, !suspensionStops(at: pending[index]) {
            if index > 0, sweep.writesBlocked, !sweep.readsMove || pending.claimingInputCount == claimingStayed {
                break
            }
            operationsVisited += 1
            switch step(at: index, &sweep) {
            case .stays:
                if pending[index].claimsInput { claimingStayed += 1 }
                index += 1
            case .issued:
                var write = pending.remove(at: index)
                write.stage = .underway
                if case .write(let bytes) = write.operation { bytesInFlight += bytes.readableBytes }
                writesInFlight.append(write)
            case .done: pending.remove(at: index)
            case .stop: return sweep.actions
            }
        }
        if sweep.writesIssued > 0 {
            confirmLastWriteIfDue(&sweep)
        } else if roomAwaited, !holdsOperations {
            askForConfirmation(&sweep)
        }
        if sweep.writesIssued > 0 || sweep.confirmationAsked {
            sweep.actions.append(.flush)
        }
        sweep.actions += closeOrRequestInput(bytesWanted: sweep.bytesWanted)
        return sweep.actions
    }

    private mutating func step(at index: Int, _ sweep: inout Sweep) -> Step {
        let item = pending[index]
        switch item.operation {
        case .read(let minLength, let maxLength):
            return stepRead(&sweep) {
                ($0.completeRead(item, minLength: minLength, maxLength: maxLength), minLength)
            }
        case .readThrough(let delimiter, let maxLength):
            return stepRead(&sweep) {
                ($0.completeReadThrough(item, delimiter: delimiter, maxLength: maxLength), maxLength)
            }
        case .readFrame(let scan):
            return stepRead(&sweep) { $0.completeReadFrame(item, scan: scan) }
        case .closeRead:
            return stepCloseRead(item, &sweep)
        case .write(let bytes):
            return stepWrite(item, bytes: bytes, at: index, &sweep)
        case .closeWrite:
            return stepCloseWrite(item, &sweep)
        case .startTLS, .stopTLS:
            return stepTLSBarrier(item, at: index, &sweep)
        case .captureStreams:
            return stepCapture(item, at: index, &sweep)
        }
    }

    /// A read at the head of the read lane: `complete` gives its outcome, or `nil` while it
    /// waits, with the bytes it waits for (which then hold the lane).
    private mutating func stepRead(
        _ sweep: inout Sweep,
        complete: (inout Self) -> (action: Action?, bytesWanted: Int)
    ) -> Step {
        guard sweep.readsMove else { return .stays }
        let (action, bytesWanted) = complete(&self)
        guard let action else {
            sweep.blockReads(wanting: bytesWanted)
            return .stays
        }
        sweep.actions.append(action)
        return .done
    }

    private mutating func stepCloseRead(_ item: Pending, _ sweep: inout Sweep) -> Step {
        guard sweep.readsMove else { return .stays }
        if case .waiting = reach {
            sweep.blockReads()
            return .stays
        }
        sweep.actions += shutDownInput()
        sweep.actions.append(.succeed(item.id, to: item.completion))
        return .done
    }

    private mutating func stepWrite(_ item: Pending, bytes: ByteBuffer, at index: Int, _ sweep: inout Sweep) -> Step {
        if case .blocked = sweep.writes { return .stays }
        switch reach {
        case .waiting:
            sweep.blockWrites()
            return .stays
        case .gone(let error):
            return failGone(item, error, &sweep)
        case .connected:
            guard channelTakesWrites else {
                sweep.blockWrites()
                return .stays
            }
            sweep.lastWrite = sweep.actions.count
            sweep.actions.append(.write(item.id, bytes, confirm: false))
            sweep.writesIssued += 1
            if item.awaitsOutcome { sweep.writesAwaitOutcome = true }
            unconfirmedWrites += 1
            unconfirmedBytes += bytes.readableBytes
            sweep.noteWriteInFlight()
            return .issued
        }
    }

    /// An operation that needs the connection, which is gone: it fails with why it went.
    private func failGone(_ item: Pending, _ error: StreamTaskError?, _ sweep: inout Sweep) -> Step {
        sweep.actions.append(.fail(item.id, error ?? .connectionIsClosed, to: item.completion))
        return .done
    }

    private mutating func stepCloseWrite(_ item: Pending, _ sweep: inout Sweep) -> Step {
        guard case .free = sweep.writes else {
            if case .inFlight = sweep.writes { askForConfirmation(&sweep) }
            sweep.blockWrites()
            return .stays
        }
        switch reach {
        case .waiting:
            sweep.blockWrites()
            return .stays
        case .gone(let error):
            sweep.actions.append(
                error.map { .fail(item.id, $0, to: item.completion) } ?? .succeed(item.id, to: item.completion))
            return .done
        case .connected:
            if output != .shutDown {
                output = .shutDown
                sweep.actions.append(.emit(.writeClosed))
                sweep.actions.append(.shutdownOutput)
            }
            sweep.actions.append(.succeed(item.id, to: item.completion))
            return .done
        }
    }

    /// `startTLS` and `stopTLS`: nothing after them moves until they are done, and they start
    /// only at the head of the queue.
    private mutating func stepTLSBarrier(_ item: Pending, at index: Int, _ sweep: inout Sweep) -> Step {
        defer {
            sweep.blockReads()
            sweep.blockWrites()
        }
        guard !item.isUnderway, index == 0, writesInFlight.isEmpty else {
            if index == 0 { askForConfirmation(&sweep) }
            return .stays
        }
        switch reach {
        case .waiting:
            return .stays
        case .gone(let error):
            return failGone(item, error, &sweep)
        case .connected:
            break
        }
        var early: ByteBuffer?
        if case .startTLS(let role) = item.operation, bufferedByteCount > 0 {
            guard role.isServer, buffer.startsLikeATLSHandshake() else {
                refusePlaintextInjection(item, at: index, &sweep)
                return .stop
            }
            // A client may send its hello as soon as it reads the go-ahead: those bytes
            // belong to the TLS handler, not to any read.
            early = buffer.takeAll()
        }
        pending[index].stage = .underway
        switch item.operation {
        case .startTLS(let role): sweep.actions.append(.startTLS(item.id, role, early: early))
        default: sweep.actions.append(.stopTLS(item.id))
        }
        return .stays
    }

    /// Plaintext that arrived after the go-ahead and before the handshake (CVE-2011-0411):
    /// never hand it out as if it were protected. The upgrade fails and the connection closes.
    private mutating func refusePlaintextInjection(_ item: Pending, at index: Int, _ sweep: inout Sweep) {
        let error = StreamTaskError(
            .tlsPlaintextInjection,
            "\(bufferedByteCount) bytes arrived in plaintext before the TLS handshake began; the upgrade was refused and the connection closed"
        )
        buffer.removeAll()
        pending.remove(at: index)
        sweep.actions.append(.fail(item.id, error, to: item.completion))
        sweep.actions += closed(error: error)
        sweep.actions.append(.close)
    }

    private mutating func stepCapture(_ item: Pending, at index: Int, _ sweep: inout Sweep) -> Step {
        guard index == 0, writesInFlight.isEmpty else {
            if index == 0 { askForConfirmation(&sweep) }
            sweep.blockReads()
            sweep.blockWrites()
            return .stays
        }
        switch reach {
        case .waiting:
            sweep.blockReads()
            sweep.blockWrites()
            return .stays
        case .gone(let error):
            return failGone(item, error, &sweep)
        case .connected:
            // The old owner's operations queued behind the barrier: the connection is no
            // longer theirs.
            for later in pending.removeAllButFirst() {
                sweep.actions.append(.fail(later.id, .streamsCaptured, to: later.completion))
            }
            handOverToStreams()
            sweep.actions.append(.captureStreams(item.id, to: item.completion))
            return .done
        }
    }

    /// After a pass that handed writes to the channel: the last of them asks for its outcome,
    /// which stands for every write before it, when one of them awaits its outcome or enough
    /// went unconfirmed (see ``unconfirmedWrites``).
    private mutating func confirmLastWriteIfDue(_ sweep: inout Sweep) {
        guard let index = sweep.lastWrite, !sweep.confirmationAsked,
            sweep.writesAwaitOutcome || roomAwaited || unconfirmedWrites >= Self.confirmationInterval
                || unconfirmedBytes >= Self.confirmationBytes
        else { return }
        sweep.actions.confirmWrite(at: index)
        forgetUnconfirmedWrites()
    }

    /// Something waits for the writes in flight to finish: if the last of them went without
    /// asking for its outcome, the channel is handed an empty write that does (once).
    private mutating func askForConfirmation(_ sweep: inout Sweep) {
        guard unconfirmedWrites > 0, let last = writesInFlight.last else { return }
        sweep.actions.append(.confirmWrites(through: last.id))
        sweep.confirmationAsked = true
        forgetUnconfirmedWrites()
    }

    /// After a pass: once both directions are done, close; otherwise keep input coming while
    /// the buffer is under its limit.
    private mutating func closeOrRequestInput(bytesWanted: Int) -> Actions {
        guard connection == .open else { return Actions() }
        let inputDone = inbound.hasEnded || input == .shutDown
        if inputDone && output == .shutDown {
            // A suspended task keeps its connection: operations may still wait for the buffer.
            guard !holdsOperations else { return Actions() }
            closeAsked()
            return Actions(.close)
        }
        // A read that asks for more than the limit may buffer what it asked for.
        guard !inputDone, case .flowing = inbound, bufferedByteCount < Swift.max(highWaterMark, bytesWanted) else {
            return Actions()
        }
        inbound = .requested
        return Actions(.requestInput)
    }
}
