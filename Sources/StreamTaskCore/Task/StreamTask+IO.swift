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
import NIOFoundationCompat

extension StreamTask {
    /// Reads at least `minBytes` and at most `maxBytes` bytes.
    ///
    /// Returns as soon as `minBytes` are buffered, with as many as are there up to `maxBytes`.
    /// At end of stream it returns whatever is left, which may be fewer than `minBytes` or none,
    /// and `atEOF` is `true` once nothing is left to read. With `minBytes == 0` it returns at once
    /// with what is buffered if anything is, and otherwise waits, as with `minBytes == 1`, for a
    /// byte or the end of the stream.
    ///
    /// So a read that succeeds has at least one byte or `atEOF` `true`, never neither, and a loop
    /// that reads until `atEOF` (or an error) ends without spinning. A read at the end of the
    /// stream returns at once an empty `Data` (not `nil`) with `atEOF` `true`, as often as it is
    /// issued; after ``closeRead()`` reads fail with ``StreamTaskError/Code/readClosed``.
    ///
    /// A read that the bytes already received satisfy completes on the caller's thread, without
    /// a trip to the event loop; one that finds nothing received waits for the loop to complete
    /// it as the bytes arrive, and any other waits in the loop's queue, in order (see
    /// <doc:Performance>).
    ///
    /// A read that times out throws ``StreamTaskError/Code/timedOut`` and loses nothing: the
    /// bytes that had arrived stay buffered for the next read. So does a read whose Swift task is
    /// cancelled.
    ///
    /// - Parameters:
    ///   - minBytes: The fewest bytes to return (unless the stream ends first); 0 or more.
    ///   - maxBytes: The most bytes to return; at least 1 and at least `minBytes`.
    ///   - timeout: Seconds to wait; 0 (or less, or `.infinity`) means no timeout.
    /// - Returns: The bytes (never `nil` when the read succeeds; empty only at end of stream)
    ///   and whether the stream has ended with nothing left to read.
    public func readData(
        ofMinLength minBytes: Int,
        maxLength maxBytes: Int,
        timeout: TimeInterval
    ) async throws -> (Data?, Bool) {
        let (bytes, atEOF) = try await readBuffer(ofMinLength: minBytes, maxLength: maxBytes, timeout: timeout)
        return (Data(buffer: bytes, byteTransferStrategy: .automatic), atEOF)
    }

    /// Reads at least `minBytes` and at most `maxBytes` bytes into a SwiftNIO buffer, by the
    /// same rules as ``readData(ofMinLength:maxLength:timeout:)``.
    ///
    /// A `Data` is a copy of the bytes received; the buffer returned here shares their storage,
    /// as `NIOAsyncChannel`'s inbound stream hands on the channel's buffers. Use this form when
    /// the bytes go on to SwiftNIO code, or for bulk transfers, where the copy is a good part
    /// of the cost. This is the library's own form: Apple's API has no counterpart.
    ///
    /// - Returns: The bytes (empty only at end of stream) and whether the stream has ended
    ///   with nothing left to read.
    public func readBuffer(
        ofMinLength minBytes: Int,
        maxLength maxBytes: Int,
        timeout: TimeInterval
    ) async throws -> (buffer: ByteBuffer, atEOF: Bool) {
        let operation = StreamTaskStateMachine.Operation.read(minLength: minBytes, maxLength: maxBytes)
        if !Task.isCancelled, let bytes = readAtOnce(operation) { return (bytes, false) }
        let outcome = try await awaitOperation(operation, timeout: timeout)
        return (outcome.bytes, outcome.atEOF)
    }

    /// Reads at least `minBytes` and at most `maxBytes` bytes, with the session's read timeout.
    public func readData(ofMinLength minBytes: Int, maxLength maxBytes: Int) async throws -> (Data?, Bool) {
        try await readData(ofMinLength: minBytes, maxLength: maxBytes, timeout: configuration.timeoutIntervalForRead)
    }

    /// Reads up to and including the first `delimiter` (for example `"\r\n"`).
    ///
    /// The delimiter must end within the first `maxLength` bytes; if `maxLength` bytes arrive
    /// without one, the read throws ``StreamTaskError/Code/delimiterNotFound`` and the bytes stay
    /// buffered, so the caller can read them another way or close the connection.
    ///
    /// - Returns: The bytes through the delimiter. At end of stream, the bytes left without a
    ///   delimiter (the data does not end with `delimiter`), or `nil` when nothing is left.
    public func readData(
        upToAndIncluding delimiter: Data,
        maxLength: Int,
        timeout: TimeInterval
    ) async throws -> Data? {
        let operation = StreamTaskStateMachine.Operation.readThrough(delimiter: Array(delimiter), maxLength: maxLength)
        if !Task.isCancelled, let bytes = readAtOnce(operation) {
            return Data(buffer: bytes, byteTransferStrategy: .automatic)
        }
        let outcome = try await awaitOperation(operation, timeout: timeout)
        return Self.delimitedResult(outcome)
    }

    /// A delimited read's bytes, or `nil` for end of stream with nothing left.
    static func delimitedResult(_ outcome: Outcome) -> Data? {
        if outcome.atEOF && outcome.bytes.readableBytes == 0 { return nil }
        return Data(buffer: outcome.bytes, byteTransferStrategy: .automatic)
    }

    /// Reads up to and including the first `delimiter`, with the session's read timeout.
    public func readData(upToAndIncluding delimiter: Data, maxLength: Int) async throws -> Data? {
        try await readData(
            upToAndIncluding: delimiter, maxLength: maxLength, timeout: configuration.timeoutIntervalForRead)
    }

    /// Writes `data`: returns once the bytes are queued to go out in order, while at most the
    /// session's ``StreamSessionConfiguration/outboundBufferLimit`` (1 MiB) would then be on
    /// their way and the channel takes more. Otherwise it first waits for room, as
    /// `NIOAsyncChannel`'s writer waits for writability: until the bytes on their way are down to
    /// half the limit (and its own fit under it) and the channel takes more; then it is queued
    /// and returns. A write larger than the limit, or one before the connection is up, waits
    /// until its own bytes have been handed to the kernel (a write before the connection fails
    /// if the connection does).
    ///
    /// So a writer runs ahead of the network by at most that much, and no further: while the
    /// peer does not read, writes wait here rather than piling up in memory. Writes go out in
    /// the order they were issued, those that waited for room included; those that reach the
    /// event loop while it is busy go out together, in one system call, once it gets to them,
    /// and so do those that code on ``executor`` makes before it next suspends, until 64 KiB
    /// wait: from there each goes out as it is made (see <doc:Performance>). A write that
    /// returned early and then fails makes the next write throw that error (a reset, say, also
    /// fails the reads); to know that every byte has left, call ``closeWrite()`` or write with
    /// the completion-handler form, which completes when its bytes reach the kernel, as
    /// Apple's does.
    ///
    /// A write that times out, or whose Swift task is cancelled, while it waits for room or
    /// before the channel took it is withdrawn: nothing of it is sent, and the connection stays
    /// open. One that times out after the channel took it may have been sent in part, so the
    /// connection is closed (the stream would no longer be at a message boundary). The timeout
    /// counts from this call: the copy of `data` into the channel's buffer, which for hundreds
    /// of megabytes takes a noticeable part of a second, comes out of it. A write that waited
    /// for room and was queued returns as one queued at once does, and its bytes then have the
    /// whole timeout again to reach the kernel.
    ///
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - timeout: Seconds to wait; 0 (or less, or `.infinity`) means no timeout.
    public func write(_ data: Data, timeout: TimeInterval) async throws {
        let startedAt = NIODeadline.now()
        try await writeBehind(ByteBuffer(data: data), timeout: timeout, startedAt: startedAt)
    }

    /// Writes the readable bytes of `buffer`, by the same rules as writing a `Data`.
    ///
    /// A `Data` is copied into a SwiftNIO buffer on its way to the channel; `buffer` is handed
    /// over as it is. Use this form when the bytes are in a `ByteBuffer` already, or when the
    /// same bytes go out many times: for large writes the copy is a good part of the cost.
    ///
    /// - Parameters:
    ///   - buffer: The bytes to send (its readable bytes; its indices are not moved).
    ///   - timeout: Seconds to wait; 0 (or less, or `.infinity`) means no timeout.
    public func write(_ buffer: ByteBuffer, timeout: TimeInterval) async throws {
        try await writeBehind(buffer, timeout: timeout, startedAt: .now())
    }

    /// Queues `buffer` and returns at once while the outbound limit allows it (see
    /// ``write(_:timeout:)-(Data,_)``); otherwise waits for room, or for its bytes to reach the
    /// kernel when it is larger than the limit or the connection is not up.
    private func writeBehind(_ buffer: ByteBuffer, timeout: TimeInterval, startedAt: NIODeadline) async throws {
        let count = buffer.readableBytes
        let limit = configuration.outboundBufferLimit
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        // The common case under one lock: the ledger's room, the operation's id and its place
        // on the way to the loop (a write with room is one of a running task, which nothing
        // refuses, and whose caller is not waiting for it).
        let admission = withShared { shared -> WriteBehindLedger<RoomWaiter>.Admission in
            let admission = shared.machine.admitWriteBehind(count, limit: limit)
            guard case .reserved = admission else { return admission }
            let request = writeBehindRequest(
                buffer, id: shared.nextOperationID(), timeout: timeout, startedAt: startedAt)
            followUp.admit(request, onLoop: onLoop, in: &shared, by: driver)
            return admission
        }
        switch admission {
        case .reserved:
            follow(followUp)
        case .waitForRoom:
            try await writeWhenRoom(buffer, timeout: timeout, startedAt: startedAt)
        case .waitForOutcome:
            _ = try await awaitOperation(.write(buffer), timeout: timeout, startedAt: startedAt)
        case .failed(let error):
            throw error
        }
    }

    /// Writes the readable bytes of `buffer` and completes `promise` on the task's
    /// ``eventLoop``, by the same rules as ``write(_:timeout:)-(ByteBuffer,_)``.
    ///
    /// This is SwiftNIO's form, `Channel.write(_:promise:)`, and the cheapest: nothing goes to
    /// the delegate queue, and code that runs on the event loop (a callback of `promise`, or
    /// code on ``executor``) submits its next write without a hand-off to another thread. A
    /// server that writes many small messages to many clients spends much of its time on those
    /// hand-offs otherwise. Keep what runs on the event loop short: it holds up every connection
    /// on that thread. With `promise` `nil` nobody hears how the write ended, though a failure
    /// still closes the connection when the other rules say so; and with no timeout either,
    /// the task does not ask the channel for this write's outcome, as SwiftNIO's write with no
    /// promise does not: a later write's stands for it.
    ///
    /// Called on the event loop outside Swift concurrency (from a callback of `promise`, or a
    /// closure given to `EventLoop.execute`), the write is flushed before that code's loop job
    /// ends, as by `Channel.writeAndFlush`: such code gathers its own writes. Called from async
    /// code, it is flushed as the async write is.
    ///
    /// - Parameters:
    ///   - buffer: The bytes to send (its readable bytes; its indices are not moved).
    ///   - timeout: Seconds to wait; 0 (or less, or `.infinity`) means no timeout.
    ///   - promise: Succeeded once every byte has been handed to the kernel, failed with a
    ///     ``StreamTaskError`` otherwise.
    public func write(_ buffer: ByteBuffer, timeout: TimeInterval, promise: EventLoopPromise<Void>?) {
        submit(.write(buffer), timeout: timeout, reportingTo: .promise(promise))
    }

    /// Writes `data` with the session's write timeout.
    public func write(_ data: Data) async throws {
        try await write(data, timeout: configuration.timeoutIntervalForWrite)
    }

    /// Closes the read side once every earlier read has completed: reads queued before it still
    /// get the bytes that arrive (or the end of the stream, or their timeout), then what is left
    /// buffered is dropped, and reads issued after it fail at once with
    /// ``StreamTaskError/Code/readClosed``. Writes go on as before, queued ones included: they
    /// are another lane, and neither waits for the other.
    public func closeRead() {
        submit(.closeRead, timeout: 0) { _ in }
    }

    /// Closes the write side once every earlier write has completed: every byte of the writes
    /// queued before it reaches the peer before its end of stream. Reading goes on, reads
    /// queued before it included: it does not wait for them, since a request/response client
    /// may have issued its read first and the peer may answer only after the end of stream.
    /// Writes issued after this fail at once with ``StreamTaskError/Code/writeClosed``.
    public func closeWrite() {
        // From here every write waits for its outcome, so one issued after this fails at once;
        // writes waiting for room were issued before it, and go first.
        releaseRoomWaiters { $0.stopEarlyReturns() }
        submit(.closeWrite, timeout: 0) { _ in }
    }

    /// Queues `operation` and waits for it; cancelling the waiting Swift task withdraws it.
    func awaitOperation(
        _ operation: StreamTaskStateMachine.Operation,
        timeout: TimeInterval,
        fromStreams: Bool = false,
        startedAt: NIODeadline? = nil
    ) async throws -> Outcome {
        // The id exists before the operation is submitted, so a cancellation at any point can
        // name it; whichever comes first under the task's lock, the submission or the
        // withdrawal, the operation cannot be missed (see `abandon(_:)`).
        let id = makeOperationID()
        return try await withTaskCancellationHandler {
            // Unsafe rather than checked: this is every operation's path, and `submit` calls
            // its completion exactly once (the lifecycle tests end queued operations by
            // refusal, timeout, cancellation and reset, and none hangs).
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Outcome, any Error>) in
                submit(
                    operation, id: id, timeout: timeout, cancelledWithCaller: true, fromStreams: fromStreams,
                    startedAt: startedAt, reportingTo: .continuation(continuation))
            }
        } onCancel: {
            abandon(id)
        }
    }
}
