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

/// A stream task's state as one plain value: its connection, each direction of the stream, its
/// queued operations and its inbound buffer.
///
/// It performs no I/O: each input (an operation enqueued, bytes received, the channel becoming
/// writable, a timeout, …) returns the ``Action``s its owner must carry out, in order. That keeps
/// every ordering rule testable without sockets. An input that cannot happen in the current
/// state (a write completing that was never handed to the channel, bytes before the connection)
/// stops the process: it would mean the owner lost track of the connection.
///
/// Ordering rules:
/// - Reads (and `closeRead`) form one lane, writes (and `closeWrite`) another. Each lane
///   completes in the order it was issued; the lanes are independent, so a pending read never
///   holds back a write (a request/response client may issue its read before its write).
/// - A read completes from the buffer as soon as the buffer satisfies it. A read that times out
///   or is abandoned leaves the buffer alone: the next read gets the bytes.
/// - `startTLS` and `stopTLS` are barriers: each starts once every earlier operation has
///   completed, and nothing issued after it starts until it is done. Unread bytes buffered when
///   `startTLS` starts arrived in plaintext after the go-ahead. A client refuses them (a server
///   says nothing until it has the client's hello): the upgrade fails and the connection closes.
///   A server passes them to the TLS handler if they begin like a TLS handshake record (a quick
///   client's hello), and refuses them otherwise. Either way, none is ever handed to a read.
/// - `captureStreams` is a barrier as well. When every earlier operation has completed it hands
///   the connection over (``Action/captureStreams(_:)``); operations queued behind it fail with
///   ``StreamTaskError/Code/streamsCaptured``, and from then on only operations marked as coming
///   from the captured streams are accepted. Unread bytes stay buffered for the streams.
/// - Writes are handed to the channel while it is writable; more wait here (backpressure).
///   `closeWrite` runs once every earlier write has completed, `closeRead` once every earlier
///   read has.
/// - Input is requested from the channel only while the buffer holds fewer than
///   `highWaterMark` bytes (or, when the first waiting read needs more, fewer than it needs),
///   so a slow reader slows the peer and memory stays bounded by what the caller asked for.
/// - While the task is suspended (``Life`` and ``Activity``), no operation moves and the connection stays
///   open; input still comes up to `highWaterMark`. `resume()` moves everything, in order.
struct StreamTaskStateMachine {
    /// The connection, as the operations see it: part of the task's ``Life``, which it is read
    /// from (``connection``).
    enum Connection {
        /// Not connected yet: operations wait.
        case notConnected
        case open
        /// Both directions are done and the machine asked for the close; the channel has not
        /// closed yet. Operations see an open connection.
        case closing
        /// Closed; `nil` for an orderly close.
        case closed(StreamTaskError?)
    }

    /// What the peer's side of the input has done.
    enum Inbound {
        /// More bytes may come; the channel is not reading for the task right now.
        case flowing
        /// The channel is carrying out a burst of reads asked for with ``Action/requestInput``.
        case requested
        /// The peer's end of stream arrived (or the connection closed in order). With a
        /// truncation (TLS ended without `close_notify`), reads get the bytes buffered before
        /// it, then that error where the end would be.
        case ended(truncation: StreamTaskError?)
    }

    /// This side's closing of one direction (`closeRead` or `closeWrite`).
    enum Direction {
        case open
        /// The close is queued behind earlier operations of its lane: later operations of the
        /// lane fail at once.
        case closeQueued
        /// The close ran: for input, buffered bytes were dropped and reads fail; for output,
        /// the peer was sent the end of stream.
        case shutDown
    }

    /// Whether the channel takes more writes now.
    enum Writability {
        case writable
        /// The channel's outbound buffer is over its high-water mark: writes wait here.
        case full
    }

    struct Pending {
        /// When a timed operation is withdrawn, and what its withdrawal needs to know.
        struct Deadline {
            let at: NIODeadline
            /// The caller's timeout, for the error's message.
            let timeout: TimeInterval
            /// A write whose caller returned before its bytes left: withdrawn, it closes the
            /// connection (see ``StreamTaskStateMachine/abandon(_:error:returnedEarly:)``).
            let returnedEarly: Bool
        }

        /// How far a queued operation has gone.
        enum Stage {
            /// Waiting in the queue.
            case queued
            /// Handed to the channel (a write) or under way (a TLS transition): it can no
            /// longer be taken back without closing the connection.
            case underway
        }

        let id: OperationID
        let operation: Operation
        /// Its place in the order operations were queued (see ``Activity/suspending(from:)``).
        var sequence: UInt64 = 0
        var stage = Stage.queued
        /// Where its outcome goes: it travels with the operation, from the queue to the
        /// action that reports the outcome. `nil` in tests that drive the machine alone.
        var completion: OperationCompletion?
        /// When it times out, if it does: the deadline lives with the operation, and the task
        /// keeps one timer, for the earliest of them (see ``expired(at:)``).
        var deadline: Deadline?

        var isUnderway: Bool { stage == .underway }
        /// Whether someone waits for its outcome, or its deadline needs it. A write that
        /// nobody hears of (`write(_:timeout:promise:)` given no promise), or only the write
        /// ledger, and that has no deadline, is handed to the channel without a confirmation
        /// of its own, as SwiftNIO's write with no promise is (see ``unconfirmedWrites``).
        var awaitsOutcome: Bool { deadline != nil || completion?.mayWaitForALaterWrite != true }
        var claimsInput: Bool { operation.claimsInput }
    }

    let highWaterMark: Int
    /// How many bytes may be handed to the channel and not yet written before further writes
    /// wait: the channel's own high-water mark. The channel says when it is full, but only
    /// once it has the bytes; a pass that decides many writes at once (those queued off the
    /// loop) must not hand it more than it would have taken one at a time.
    let outboundHighWaterMark: Int
    /// The bytes of ``writesInFlight``.
    var bytesInFlight = 0
    /// How many of the last ``writesInFlight`` were handed to the channel without asking for
    /// their outcome, and their bytes: writes nobody waits for are confirmed together, by the
    /// next write that is, once ``confirmationInterval`` of them (or
    /// ``confirmationBytes``) have gone, or when something waits for the writes in flight to
    /// finish (`closeWrite`, a barrier). So such writes cost a promise each only per many.
    var unconfirmedWrites = 0
    var unconfirmedBytes = 0
    /// The async writes that returned before their bytes left, and those waiting for room
    /// among them (see ``WriteBehindLedger`` and ``admitWriteBehind(_:limit:)``).
    var writeBehind = WriteBehindLedger<RoomWaiter>()
    static let confirmationInterval = 32
    static let confirmationBytes = 64 * 1024
    /// The first error the channel reported, while the connection is not closed: the
    /// connection closes with it (see ``channelFailed(_:)``).
    private(set) var channelFailure: StreamTaskError?
    /// The task's life (see ``Life``): changed only by the inputs beside it, in
    /// `StreamTaskStateMachine+Life.swift`.
    var life = Life.created
    var inbound = Inbound.flowing
    var input = Direction.open
    var output = Direction.open
    var writability = Writability.writable
    /// The task's own TLS (see ``Security``); changed only by the inputs beside it.
    var security = Security.plaintext
    /// This side is closing the connection: a missing close_notify from the peer is then no
    /// truncation, since this side may close the socket beneath TLS without waiting for it.
    var closingByThisSide = false
    /// Operations queued, and TLS transitions under way, in the order they were issued.
    var pending = PendingOperations()
    /// Writes handed to the channel, oldest first: the channel completes them in that order.
    /// They are all older than any write or `closeWrite` still queued. Two slots to start
    /// with, as in `PendingOperations`: an idle connection holds none.
    var writesInFlight = CircularBuffer<Pending>(initialCapacity: 2)
    var buffer = ByteQueue()
    /// How many queued operations the passes over the queue have looked at, in all: what a
    /// pass costs, for the tests that hold it to the operations that can move.
    var operationsVisited = 0
    /// How many operations were queued, in all: the sequence of the last one.
    private(set) var queuedCount: UInt64 = 0
    /// The sequence of the first operation queued off the loop since the last pass that is
    /// waiting for one (see ``admit(_:id:fromStreams:completion:deadline:)``); `nil` when the
    /// last pass saw every operation queued.
    var undecidedFrom: UInt64?

    init(highWaterMark: Int = 256 * 1024, outboundHighWaterMark: Int = 512 * 1024) {
        self.highWaterMark = highWaterMark
        self.outboundHighWaterMark = outboundHighWaterMark
    }

    /// Whether a write may be handed to the channel now.
    var channelTakesWrites: Bool {
        writability == .writable && (bytesInFlight == 0 || bytesInFlight < outboundHighWaterMark)
    }

    /// No write in flight is waiting for a confirmation any more.
    mutating func forgetUnconfirmedWrites() {
        unconfirmedWrites = 0
        unconfirmedBytes = 0
    }

    /// `item` left ``writesInFlight``.
    private mutating func leftFlight(_ item: Pending) {
        if case .write(let bytes) = item.operation { bytesInFlight -= bytes.readableBytes }
    }

    /// Bytes received and not yet read.
    var bufferedByteCount: Int { buffer.readableBytes }

    /// Whether any operation is still waiting or in flight.
    var hasPendingOperations: Bool { !pending.isEmpty || !writesInFlight.isEmpty }

    /// Every operation the machine holds: the writes in flight, then the queue.
    var operations: [Pending] { Array(writesInFlight) + pending.elements }

    /// The error the connection closed with, if it closed with one.
    var closeError: StreamTaskError? {
        if case .closed(let error) = connection { return error }
        return nil
    }

    /// Whether the connection is up (open, or closing but not closed yet).
    var isConnected: Bool {
        switch connection {
        case .open, .closing: return true
        case .notConnected, .closed: return false
        }
    }

    // MARK: Inputs

    /// Queues `operation`, whose outcome goes to `completion`, and decides what moves. After
    /// `captureStreams` has taken effect, only operations `fromStreams` (the captured streams'
    /// own) are accepted; others fail at once.
    mutating func enqueue(
        _ operation: Operation,
        id: OperationID,
        fromStreams: Bool = false,
        completion: OperationCompletion? = nil,
        deadline: Pending.Deadline? = nil
    ) -> Actions {
        let (refusal, _) = admit(
            operation, id: id, fromStreams: fromStreams, completion: completion, deadline: deadline)
        return refusal.isEmpty ? process() : refusal
    }

    /// Queues `operation` without deciding anything, for a caller off the event loop: only the
    /// loop knows whether the channel takes more, so only a pass there (``process()``) hands
    /// writes to it. Returns the refusal, if the operation is refused at once, and whether the
    /// loop must make a pass for it: not for a read that can only wait (nothing is buffered,
    /// input is on its way, and the task runs), which the loop completes as its bytes come.
    mutating func admit(
        _ operation: Operation,
        id: OperationID,
        fromStreams: Bool = false,
        completion: OperationCompletion? = nil,
        deadline: Pending.Deadline? = nil
    ) -> (refusal: Actions, passNeeded: Bool) {
        if streamsCaptured && !fromStreams {
            return (Actions(.fail(id, .streamsCaptured, to: completion)), false)
        }
        if let error = validate(operation) {
            return (Actions(.fail(id, error, to: completion)), false)
        }
        switch operation {
        case .closeRead where input == .open: input = .closeQueued
        case .closeWrite where output == .open: output = .closeQueued
        default: break
        }
        queuedCount += 1
        pending.append(
            Pending(id: id, operation: operation, sequence: queuedCount, completion: completion, deadline: deadline))
        if readWaitsQuietly(operation) { return (Actions(), false) }
        if undecidedFrom == nil { undecidedFrom = queuedCount }
        return (Actions(), true)
    }

    /// Whether a read just queued can only wait for bytes already asked for: no pass would
    /// move it.
    private func readWaitsQuietly(_ operation: Operation) -> Bool {
        switch operation {
        case .read, .readThrough, .readFrame: break
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams: return false
        }
        guard case .requested = inbound, connection == .open, activity == .running else { return false }
        return bufferedByteCount == 0 && operation.argumentError == nil
    }

    /// Withdraws operation `id` if it is queued and not under way, without deciding anything
    /// (for a caller off the loop): returns its failure, and the loop must make a pass, since
    /// what waited behind it may move. `nil` when it is not so queued: the loop withdraws it
    /// (``abandon(_:error:returnedEarly:)``).
    mutating func withdrawQueued(_ id: OperationID, error: StreamTaskError) -> Actions? {
        guard let index = pending.firstOffset(where: { $0.id == id }), !pending[index].isUnderway else { return nil }
        switch pending[index].operation {
        case .read, .readThrough, .readFrame, .write:
            break
        case .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
            // What they changed as they were queued is the loop's to undo.
            return nil
        }
        let item = pending.remove(at: index)
        if undecidedFrom == nil { undecidedFrom = item.sequence }
        return Actions(.fail(id, error, to: item.completion))
    }

    mutating func connected() -> Actions {
        guard hasStarted else { preconditionFailure("connected before the task started") }
        switch connection {
        case .notConnected:
            setConnection(.open)
            return process()
        case .closed:
            // Cancelled while the channel was being set up.
            return Actions()
        case .open, .closing:
            preconditionFailure("connected twice")
        }
    }

    mutating func received(_ bytes: ByteBuffer) -> Actions {
        switch connection {
        case .notConnected:
            preconditionFailure("bytes received before the connection was up")
        case .closed:
            // Cancelled: what was in flight no longer matters.
            return Actions()
        case .open, .closing:
            break
        }
        guard input != .shutDown, !inbound.hasEnded else { return Actions() }
        buffer.enqueue(bytes)
        // Bytes of a read pass the machine asked for are decided at the pass's end
        // (``receiveCompleted()``), together, as if they had come in one read: a reader off the
        // loop then wakes once a pass, not once for each read of the socket. TCP may cut the
        // stream anywhere, so nothing decided here could depend on how the pass was cut. Bytes
        // outside such a pass (a TLS handler's leftovers as it leaves) are decided at once.
        if case .requested = inbound { return Actions() }
        return process()
    }

    /// The channel finished a burst of reads asked for with ``Action/requestInput``.
    mutating func receiveCompleted() -> Actions {
        switch connection {
        case .notConnected:
            preconditionFailure("a read pass completed before the connection was up")
        case .closed:
            // The close decided whatever waited for input.
            return Actions()
        case .open, .closing:
            if case .requested = inbound { inbound = .flowing }
            return process()
        }
    }

    /// The peer closed its side of the stream (a FIN arrived). With `truncation`, that end is
    /// not trustworthy: reads that reach it fail with that error, and leave what is buffered.
    mutating func inputEnded(truncation: StreamTaskError? = nil) -> Actions {
        if case .notConnected = connection {
            preconditionFailure("input ended before the connection was up")
        }
        guard input != .shutDown, !inbound.hasEnded else { return Actions() }
        var actions = endInput(truncation: truncation)
        actions += process()
        return actions
    }

    mutating func writabilityChanged(_ isWritable: Bool) -> Actions {
        writability = isWritable ? .writable : .full
        switch connection {
        case .notConnected, .closed:
            // Nothing of the task's is in the channel before the connection is up, and after
            // the close no write moves: the writability is only kept, for the write ledger.
            return Actions()
        case .open, .closing:
            return isWritable ? process() : Actions()
        }
    }

    /// Every write handed to the channel up to and including `id` finished, with `error` if
    /// they failed: the channel completes writes in order, so one outcome stands for all of
    /// them (see `StreamTaskDriver.writeToChannel(_:id:confirms:)`). Returns the bytes that left.
    /// With `passing` false, no pass follows: the caller makes one in the same step.
    mutating func writesCompleted(
        through id: OperationID, error: StreamTaskError?, passing: Bool = true
    ) -> (actions: Actions, bytes: Int) {
        guard writesInFlight.contains(where: { $0.id == id }) else {
            // Gone already (withdrawn, which closed the connection, or failed by the close,
            // which took every write before it too), or never handed over.
            precondition(
                pending.firstOffset(where: { $0.id == id }) == nil,
                "\(id) completed as a write, but no write of that id was handed to the channel")
            return (Actions(), 0)
        }
        var actions = Actions()
        var bytes = 0
        while let write = writesInFlight.popFirst() {
            if case .write(let buffer) = write.operation { bytes += buffer.readableBytes }
            leftFlight(write)
            // Nobody hears a silent write's outcome (a failure closes the connection anyway).
            if write.completion?.isSilent != true {
                actions.append(
                    error.map { .fail(write.id, $0, to: write.completion) } ?? .succeed(write.id, to: write.completion))
            }
            if write.id == id { break }
        }
        if writesInFlight.isEmpty { forgetUnconfirmedWrites() }
        if passing { actions += process() }
        return (actions, error == nil ? bytes : 0)
    }

    /// A TLS transition finished: with `nil` the connection is now protected (or plaintext
    /// again after `stopTLS`); an error closes the connection, since the stream's state is
    /// unknown after a failed handshake.
    mutating func tlsTransitionCompleted(
        _ id: OperationID,
        error: StreamTaskError?,
        closesConnection: Bool = true
    ) -> Actions {
        guard let index = pending.firstOffset(where: { $0.id == id }) else { return Actions() }
        let completion = pending[index].completion
        switch pending[index].operation {
        case .startTLS, .stopTLS:
            precondition(pending[index].isUnderway, "\(id) completed as a TLS transition before it was started")
        default:
            preconditionFailure("\(id) completed as a TLS transition, but no transition of that id was under way")
        }
        pending.remove(at: index)
        // Ask for input afresh: the TLS handler read on its own during the handshake.
        if case .requested = inbound { inbound = .flowing }
        guard let error else {
            var actions = Actions(.succeed(id, to: completion))
            actions += process()
            return actions
        }
        var actions = Actions(.fail(id, error, to: completion))
        guard closesConnection else {
            actions += process()
            return actions
        }
        actions += closed(error: error)
        actions.append(.close)
        return actions
    }

    /// Withdraws an operation that timed out or whose caller stopped waiting.
    ///
    /// A write the channel already has cannot be taken back, and part of it may have been sent,
    /// nor can a TLS handshake under way: the stream is no longer in a known state, so the
    /// connection is closed. So it is for a write whose caller was told it was written
    /// (`returnedEarly`): withdrawn, it would leave a gap in the stream that the writes after
    /// it would close over.
    mutating func abandon(_ id: OperationID, error: StreamTaskError, returnedEarly: Bool = false) -> Actions {
        let item: Pending
        if let index = writesInFlight.firstIndex(where: { $0.id == id }) {
            item = writesInFlight.remove(at: index)
            leftFlight(item)
        } else if let index = pending.firstOffset(where: { $0.id == id }) {
            item = pending.remove(at: index)
        } else {
            return Actions()
        }
        var actions = Actions(.fail(id, error, to: item.completion))
        if item.isUnderway || returnedEarly {
            let what = item.isUnderway ? "an operation under way" : "a write that had returned before it was sent"
            let reason = StreamTaskError(
                error.code, "the connection was closed because \(what) was abandoned (\(error.message))")
            actions += closed(error: reason)
            actions.append(.close)
        } else {
            actions += process()
        }
        return actions
    }

    /// The channel reported `error` (a read or write failed, a TLS handshake broke): the
    /// first such error is the one the connection closes with (see ``channelClosed()``).
    mutating func channelFailed(_ error: StreamTaskError) {
        if channelFailure == nil, !connection.isClosed { channelFailure = error }
    }

    /// A write the channel had failed with `error`; returns what the write reports. One that
    /// failed only because the channel was closing over an error seen first (a reset noticed
    /// by a read) says that error; any other failure is the channel's, as
    /// ``channelFailed(_:)`` records it.
    mutating func writeFailed(_ error: StreamTaskError) -> StreamTaskError {
        if error.code == .connectionClosed, let cause = channelFailure { return cause }
        if error.code != .connectionClosed { channelFailed(error) }
        return error
    }

    /// The channel closed: the connection is gone, with the first error the channel reported,
    /// or in order.
    mutating func channelClosed() -> Actions {
        closed(error: channelFailure)
    }

    /// The connection is gone: in order (`nil`) or with an error.
    mutating func closed(error: StreamTaskError?) -> Actions {
        if case .closed = connection { return Actions() }
        setConnection(.closed(error))
        var actions = Actions()
        if error == nil && !inbound.hasEnded && input != .shutDown {
            // An orderly close ends the input too (SwiftNIO closes at once, without an
            // input-closed event, when the FIN comes after our own output was shut).
            actions += endInput(truncation: nil)
        }
        let failure = error ?? .connectionIsClosed
        for item in writesInFlight + pending.removeAll(where: { $0.isUnderway }) {
            actions.append(.fail(item.id, failure, to: item.completion))
        }
        writesInFlight.removeAll()
        bytesInFlight = 0
        forgetUnconfirmedWrites()
        actions += process()
        return actions
    }

    /// Fails every operation with a cancellation error and closes the connection.
    mutating func cancel() -> Actions {
        var actions = Actions(operations.lazy.map { .fail($0.id, .cancelled, to: $0.completion) })
        writesInFlight.removeAll()
        bytesInFlight = 0
        forgetUnconfirmedWrites()
        pending = PendingOperations()
        buffer.removeAll()
        let wasConnected = isConnected
        if case .closed = connection { return actions }
        setConnection(.closed(.cancelled))
        if wasConnected { actions.append(.close) }
        return actions
    }

    // MARK: Transitions shared by several inputs

    /// The input ends here. A clean end is the stream's read-closed event; a truncated one is
    /// not (reads report it instead).
    private mutating func endInput(truncation: StreamTaskError?) -> Actions {
        inbound = .ended(truncation: truncation)
        return truncation == nil ? Actions(.emit(.readClosed)) : Actions()
    }

    /// `closeRead` reached the head of its lane: drop what is buffered and stop reading.
    mutating func shutDownInput() -> Actions {
        guard input != .shutDown else { return Actions() }
        input = .shutDown
        buffer.removeAll()
        // A clean end of stream has already been reported as the read side's close.
        var actions = inbound.hasEndedCleanly ? Actions() : Actions(.emit(.readClosed))
        if isConnected, !inbound.hasEnded {
            actions.append(.shutdownInput)
        }
        return actions
    }

    /// Records that the machine asked for the connection's close.
    mutating func closeAsked() {
        precondition(connection == .open, "close asked twice, or for a connection that is not open")
        setConnection(.closing)
    }

    private func validate(_ operation: Operation) -> StreamTaskError? {
        switch operation {
        case .read, .readThrough, .readFrame:
            if let error = operation.argumentError { return error }
            return input == .open ? nil : .readClosed
        case .write:
            return output == .open ? nil : .writeClosed
        case .closeRead, .closeWrite, .startTLS, .stopTLS:
            return nil
        case .captureStreams:
            return streamsCaptured ? .streamsCaptured : nil
        }
    }
}
