//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat

/// A stream task's connection after ``StreamTask/captureStreams()``: what the captured
/// streams share. Reads and writes go through the task's state machine, marked as the
/// streams' own; once neither side holds it any more, an unclosed connection is closed.
final class CapturedConnection: Sendable {
    let task: StreamTask
    /// Whether the first stream opened resumes the task, and has not yet (see
    /// ``StreamTask/captureFoundationStreamsBeforeResuming(into:_:)``).
    private let resumesOnOpen: NIOLockedValueBox<Bool>
    private let readiness: NIOLockedValueBox<Readiness>
    /// TLS asked of the streams through `socketSecurityLevelKey` (see
    /// ``setProperty(_:forKey:)``).
    let tls = NIOLockedValueBox(CapturedTLS.plain)
    /// The settings given under `kCFStreamPropertySSLSettings`, and whether TLS has taken them
    /// already (later ones are refused).
    let sslSettings = NIOLockedValueBox((settings: CapturedSSLSettings(), taken: false))
    /// What a TLS start tells: the input stream's read-ahead and the output stream's events.
    let parts = NIOLockedValueBox(Parts())

    struct Parts {
        weak var readAhead: CapturedReadAhead?
        weak var outputEvents: CapturedStreamEvents?
    }

    /// Whether the streams have the connection yet.
    private enum Readiness {
        case ready
        /// Captured before it connected; what to tell once it has (or has failed). With
        /// `securedFirst`, TLS was asked for meanwhile: the streams have the connection once
        /// its handshake is done, as Darwin's socket streams open.
        case waiting([Waiter], securedFirst: Bool)
        /// Connected, and negotiating the TLS asked for before; what to tell once done.
        case securing([Waiter])
        case failed(StreamTaskError)
    }

    typealias Waiter = @Sendable (StreamTaskError?) -> Void

    /// A connection the streams have now (`ready`), or, for streams made before it connected,
    /// one that waits for ``connected(_:)``.
    init(task: StreamTask, ready: Bool = true) {
        self.task = task
        self.resumesOnOpen = NIOLockedValueBox(!ready)
        self.readiness = NIOLockedValueBox(ready ? .ready : .waiting([], securedFirst: false))
    }

    /// The capture completed: the streams have the connection, or it failed with `error`. If
    /// TLS was asked for before, its handshake comes first (see ``secureBeforeConnecting()``).
    func connected(_ error: StreamTaskError?) {
        let (waiting, secures) = readiness.withLockedValue { readiness -> ([Waiter], Bool) in
            guard case .waiting(let waiting, let securedFirst) = readiness else { return ([], false) }
            if let error {
                readiness = .failed(error)
            } else if securedFirst {
                readiness = .securing(waiting)
                return ([], true)
            } else {
                readiness = .ready
            }
            return (waiting, false)
        }
        if secures {
            task.submit(.startTLS(clientRole()), timeout: tlsHandshakeTimeout, fromStreams: true) {
                [weak self] result in
                self?.secured(result.failure)
            }
        }
        for body in waiting { body(error) }
    }

    /// TLS asked for before connecting is up, or failed with `error`: the streams have the
    /// connection now, or fail with that.
    private func secured(_ error: StreamTaskError?) {
        tlsCompleted(error)
        let waiting = readiness.withLockedValue { readiness -> [Waiter] in
            guard case .securing(let waiting) = readiness else { return [] }
            readiness = error.map { .failed($0) } ?? .ready
            return waiting
        }
        for body in waiting { body(error) }
    }

    /// For TLS asked for before the streams have the connection: makes them wait for its
    /// handshake too, and answers `true`; `false` once they have it (TLS then starts at once).
    func secureBeforeConnecting() -> Bool {
        readiness.withLockedValue { readiness in
            guard case .waiting(let waiting, _) = readiness else { return false }
            readiness = .waiting(waiting, securedFirst: true)
            return true
        }
    }

    /// Calls `body` once the streams have the connection (with `nil`) or it failed (with the
    /// error): at once if that is known already, else on the task's event loop when it is.
    func whenConnected(_ body: @escaping Waiter) {
        let known = readiness.withLockedValue { readiness -> StreamTaskError?? in
            switch readiness {
            case .ready: return .some(nil)
            case .failed(let error): return .some(error)
            case .waiting(let waiting, let securedFirst):
                readiness = .waiting(waiting + [body], securedFirst: securedFirst)
                return .none
            case .securing(let waiting):
                readiness = .securing(waiting + [body])
                return .none
            }
        }
        if let known { body(known) }
    }

    /// Hands `operation` to the task as the streams' own once the streams have the connection
    /// (the capture fails whatever is queued behind it that is not), or fails it with the error
    /// the connection failed with before that.
    /// With `id` and `abandoned`, the operation can be withdrawn (see `StreamTask.abandon(_:)`);
    /// with a `timeout` (seconds; 0 for none), it fails with `timedOut` once that has passed.
    func submit(
        _ operation: StreamTaskStateMachine.Operation,
        id: OperationID? = nil,
        timeout: TimeInterval = 0,
        abandoned: NIOLockedValueBox<Bool>? = nil,
        completion: @escaping StreamTaskDriver.Completion
    ) {
        whenConnected { [task] error in
            if let error { return completion(.failure(error)) }
            task.submit(
                operation, id: id, timeout: timeout, abandoned: abandoned, fromStreams: true, completion: completion)
        }
    }

    /// How long a TLS handshake the streams asked for may take: the session's
    /// `timeoutIntervalForRequest`, or 60 s when that is 0. A peer that never answers the
    /// handshake then fails the streams instead of holding the connection for good.
    var tlsHandshakeTimeout: TimeInterval {
        let request = task.configuration.timeoutIntervalForRequest
        return request > 0 ? request : 60
    }

    /// Whether the streams have the connection (`false` while it connects, or if it failed).
    var isConnected: Bool {
        readiness.withLockedValue { if case .ready = $0 { true } else { false } }
    }

    /// Why the streams cannot use the connection: TLS asked of them failed (see
    /// ``setProperty(_:forKey:)``), or the connection failed to connect before the streams had it.
    var failure: StreamTaskError? {
        if let failure = tls.withLockedValue({ $0.failure }) { return failure }
        return readiness.withLockedValue { if case .failed(let error) = $0 { error } else { nil } }
    }

    deinit {
        let captured = readiness.withLockedValue { readiness -> Bool in
            switch readiness {
            case .ready, .securing: return true
            case .waiting, .failed: return false
            }
        }
        if captured {
            // Both streams are gone: close what they left open, so that the connection ends.
            task.closeCapturedConnection()
        } else {
            // Never opened, or gone before it connected: the task waits for nothing.
            task.cancel()
        }
    }

    /// A stream was opened: resumes the task if it waits for that.
    func streamOpened() {
        let resume = resumesOnOpen.withLockedValue { resumes in
            defer { resumes = false }
            return resumes
        }
        if resume { task.resume() }
    }

    // MARK: Async

    func read(maxLength: Int) async throws -> (Data, atEOF: Bool) {
        let outcome = try await task.awaitOperation(
            .read(minLength: 1, maxLength: maxLength), timeout: 0, fromStreams: true)
        return (Data(buffer: outcome.bytes, byteTransferStrategy: .automatic), outcome.atEOF)
    }

    func write(_ data: Data) async throws {
        _ = try await task.awaitOperation(.write(ByteBuffer(data: data)), timeout: 0, fromStreams: true)
    }

    func closeWrite() {
        submit(.closeWrite) { _ in }
    }

    func closeRead() {
        submit(.closeRead) { _ in }
    }

    // MARK: Blocking (Foundation streams)

    /// The error of a Foundation stream that would wait on the task's own event loop.
    static var usedOnItsEventLoop: StreamTaskError {
        StreamTaskError(
            .invalidArgument, "a captured stream was used on its own event loop, which it would block forever")
    }

    /// Waits on the calling thread for `operation`. Refuses to run on the task's event loop,
    /// which it would deadlock.
    func blocking(_ operation: StreamTaskStateMachine.Operation) -> Result<StreamTask.Outcome, StreamTaskError> {
        if task.eventLoop.inEventLoop { return .failure(Self.usedOnItsEventLoop) }
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<StreamTask.Outcome, StreamTaskError>?>(nil)
        submit(operation) { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLockedValue { $0! }
    }
}

extension StreamTask {
    /// Closes both directions of a captured connection that its streams left open.
    func closeCapturedConnection() {
        submit(.closeWrite, timeout: 0, fromStreams: true) { _ in }
        submit(.closeRead, timeout: 0, fromStreams: true) { _ in }
    }
}
