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
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamDataTask {
    // MARK: From the exchange (on the event loop)

    func responseArrived(_ response: HTTPURLResponse) {
        if response.expectedContentLength >= 0 { progress.totalUnitCount = response.expectedContentLength }
        let delegate = currentDelegate
        let (callerDecides, early) = shared.withLockedValue { shared -> (Bool, ResponseDisposition?) in
            guard shared.phase == .waitingForResponse else { return (true, nil) }
            shared.phase = .deciding
            shared.response = response
            return (shared.callerDecides, shared.earlyDisposition)
        }
        responsePromise.succeed(response)
        if let early {
            decide(early)
            return
        }
        // Without a delegate, the caller decides whenever it gets to it.
        guard !callerDecides, let delegate else { return }
        let session = self.session
        session.callbackQueue.async {
            delegate.urlSession(session, dataTask: self, didReceive: response) { disposition in
                self.decide(disposition)
            }
        }
    }

    /// A piece of the body: to ``body`` (when it is iterated, or when there is no delegate to
    /// take it) and to the delegate, counted until each has taken it.
    func bodyReceived(_ bytes: ByteBuffer) {
        let data = Data(buffer: bytes)
        progress.completedUnitCount += Int64(data.count)
        let delegate = currentDelegate
        let toStream = shared.withLockedValue { shared -> Bool in
            let toStream = shared.bodyIterated || delegate == nil
            shared.bodyBytesUnconsumed += data.count * ((toStream ? 1 : 0) + (delegate == nil ? 0 : 1))
            if !toStream { shared.bodyBytesNotInBody += data.count }
            return toStream
        }
        if toStream { bodyContinuation.yield(data) }
        if let delegate {
            let session = self.session
            session.callbackQueue.async {
                delegate.urlSession(session, dataTask: self, didReceive: data)
                self.bodyConsumed(data.count)
            }
        }
    }

    /// Whether the exchange may read more of the body now; if not, reading is marked paused
    /// and ``bodyConsumed(_:)`` starts it again.
    func mayReadMoreBody() -> Bool {
        shared.withLockedValue { shared in
            if shared.bodyBytesUnconsumed < Self.bodyWindow { return true }
            shared.bodyReadingPaused = true
            return false
        }
    }

    /// The owner took `count` body bytes (from ``body``, or the delegate returned).
    func bodyConsumed(_ count: Int) {
        let resume = shared.withLockedValue { shared -> Bool in
            shared.bodyBytesUnconsumed -= count
            guard shared.bodyReadingPaused, shared.bodyBytesUnconsumed <= Self.bodyWindow / 2 else { return false }
            shared.bodyReadingPaused = false
            return true
        }
        if resume { eventLoop.execute { self.exchange?.resumeReadingBody() } }
    }

    func bodyEnded() {
        finish(error: nil)
    }

    func failed(_ error: StreamTaskError) {
        finish(error: error.at(host: carrier.host, port: carrier.port))
    }

    /// The carrying stream task completed while it still carried this task.
    package func taskCompleted(_ error: StreamTaskError?) {
        let failure =
            error ?? StreamTaskError(.httpProtocolError, "the connection closed before the response was complete")
        finish(error: failure.at(host: carrier.host, port: carrier.port))
    }

    // MARK: Deciding

    /// Carries out a disposition, always on a later turn of the event loop: never inside the
    /// read that delivered the head.
    func decide(_ disposition: ResponseDisposition) {
        eventLoop.execute {
            let proceed = self.shared.withLockedValue { shared -> Bool in
                if shared.phase == .waitingForResponse {
                    // Before the head: the caller decides, once it has arrived.
                    shared.callerDecides = true
                    if shared.earlyDisposition == nil { shared.earlyDisposition = disposition }
                    return false
                }
                guard shared.phase == .deciding else { return false }
                switch disposition {
                case .allow: shared.phase = .receivingBody
                case .becomeStream: shared.phase = .becomingStream
                case .cancel: break
                }
                return true
            }
            guard proceed else {
                if disposition == .becomeStream, self.phaseIsNot(.becomingStream, .waitingForResponse) {
                    self.streamPromise.fail(
                        StreamTaskError(
                            .invalidArgument,
                            "the data task can no longer become a stream: its response was already handled")
                    )
                }
                return
            }
            switch disposition {
            case .allow:
                self.exchange?.allow()
            case .cancel:
                self.finish(error: .cancelled)
                self.carrier.cancel()
            case .becomeStream:
                self.turnIntoStream()
            }
        }
    }

    private func turnIntoStream() {
        guard let exchange, let response = shared.withLockedValue({ $0.response }) else {
            finish(
                error: StreamTaskError(
                    .connectionClosed, "the connection closed before the data task could become a stream"))
            return
        }
        do {
            carrierBecameStream(request: request, response: response)
            try exchange.becomeStream()
            self.exchange = nil
        } catch {
            carrier.cancel()
            finish(
                error: error as? StreamTaskError ?? StreamTaskError(.connectionFailed, "\(error)", underlying: error))
            return
        }
        streamPromise.succeed(carrier)
        if let delegate = currentDelegate {
            let (session, stream) = (self.session, carrier)
            session.callbackQueue.async { delegate.urlSession(session, dataTask: self, didBecome: stream) }
        }
        finish(error: nil)
    }

    // MARK: Completion

    /// The delegate that hears about this data task: the task's own or else the session's,
    /// when it is a ``StreamSessionDataDelegate`` (as `URLSession` asks only a data delegate).
    private var currentDelegate: (any StreamSessionDataDelegate)? {
        taskDelegate(in: session) as? any StreamSessionDataDelegate
    }

    func phaseIsNot(_ phases: Phase...) -> Bool {
        let phase = shared.withLockedValue { $0.phase }
        return !phases.contains(phase)
    }

    func finish(error: StreamTaskError?) {
        let first = shared.withLockedValue { shared -> Bool in
            guard shared.phase != .completed else { return false }
            shared.phase = .completed
            shared.error = error
            return true
        }
        guard first else { return }
        if error == nil { finishProgress() }
        let failure = error ?? StreamTaskError(.connectionClosed, "the data task completed without a response")
        responsePromise.fail(failure)
        streamPromise.fail(error ?? StreamTaskError(.invalidArgument, "the data task did not become a stream"))
        if let error {
            bodyContinuation.finish(throwing: error)
        } else {
            bodyContinuation.finish()
        }
        detachFromCarrier()
        completionPromise.succeed(())
        // Any task delegate hears of the end, as Apple's `urlSession(_:task:didCompleteWithError:)`.
        let taskDelegate = taskDelegate(in: session)
        if let taskDelegate {
            let session = self.session
            let urlError = error?.urlError
            session.callbackQueue.async { taskDelegate.urlSession(session, task: self, didCompleteWithError: urlError) }
        }
    }
}
