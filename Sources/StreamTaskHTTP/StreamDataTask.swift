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
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP/1.1 request over a session's connections, whose response you can take as a body or
/// turn into a stream task, like a `URLSessionDataTask` whose delegate answers
/// `.becomeStream`.
///
/// The request goes over a connection opened as a `StreamTask`'s would be: the session's
/// proxy settings and connection limit apply, and an `https` (or `wss`) URL uses TLS from the
/// first byte with the session's `StreamSessionConfiguration/tls`. When the response head
/// arrives, the owner decides (``ResponseDisposition``):
/// - ``ResponseDisposition/allow``: the body arrives (content-length, chunked, or up to the end
///   of the connection), through ``body``, ``bodyData()`` or the delegate;
/// - ``ResponseDisposition/cancel``: the connection closes;
/// - ``ResponseDisposition/becomeStream``: the connection becomes a `StreamTask` with no
///   HTTP framing left. Its first bytes are whatever the server sent after the response head;
///   it carries `StreamTask/originalRequest` and `StreamTask/response`. This is how a
///   `101 Switching Protocols` answer (a WebSocket, say) is taken over.
///
/// Who decides: the task's or the session's delegate, in
/// `StreamSessionDataDelegate/urlSession(_:dataTask:didReceive:completionHandler:)` (whose
/// default allows), unless you called ``receiveResponse()`` before the head arrived. Without a
/// delegate, or after ``receiveResponse()``, you decide: ``allow()`` (or iterate ``body``, or
/// call ``bodyData()``), ``cancel()`` or ``becomeStream()``; until then the response waits, and
/// nothing after its head is read.
///
/// ```swift
/// let task = session.dataTask(with: request)
/// let response = try await task.receiveResponse()   // resumes the task
/// if response.statusCode == 101 {
///     let stream = try await task.becomeStream()
///     // read and write `stream`
/// } else {
///     let body = try await task.bodyData()
/// }
/// ```
///
/// The body is read as fast as its owner takes it: at most ``bodyWindow`` bytes (1 MiB)
/// wait in ``body`` or for the delegate before the task stops reading, and the rest waits in
/// the server.
///
/// One request per connection: the connection closes after the body. While the request runs,
/// the stream task that carries it is one of the session's `StreamSession/allTasks` (it is
/// the task ``becomeStream()`` returns); its delegate hears nothing about it until then.
public final class StreamDataTask: StreamSessionTask, @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: mutable state lives in `shared`, behind a lock; the promises are
    // thread-safe, and `exchange` is only touched on the carrier's event loop.

    /// What to do with a response once its head has arrived.
    public enum ResponseDisposition: Sendable, Equatable {
        /// Receive the body.
        case allow
        /// Close the connection; the task completes with `StreamTaskError/Code/cancelled`.
        case cancel
        /// Turn the connection into a `StreamTask` with no HTTP framing left.
        case becomeStream
    }

    /// The request, as given.
    let request: URLRequest

    /// The request, as given; optional, as Apple's `URLSessionTask.originalRequest` is, so that
    /// Darwin code's `originalRequest?.url` compiles.
    public var originalRequest: URLRequest? { request }

    /// The request the task sends: ``originalRequest``, since the task follows no redirects
    /// (a 3xx response is the task's response).
    public var currentRequest: URLRequest? { request }
    /// The session the task belongs to.
    public let session: StreamSession

    let carrier: StreamTask
    let eventLoop: any EventLoop
    /// Set on the carrier's event loop once the HTTP handlers are in its pipeline.
    var exchange: HTTPExchangeHandler?

    enum Phase {
        case waitingForResponse
        case deciding
        case receivingBody
        case becomingStream
        case completed
    }

    struct Shared {
        var phase = Phase.waitingForResponse
        var response: HTTPURLResponse?
        var error: StreamTaskError?
        var callerDecides = false
        /// A decision made before the head arrived, carried out when it does.
        var earlyDisposition: ResponseDisposition?
        /// Body bytes handed to the owner (queued in ``body`` or for the delegate) and not yet
        /// taken: reading stops while this is ``StreamDataTask/bodyWindow`` or more.
        var bodyBytesUnconsumed = 0
        /// Reading stopped at the window, and starts again once half of it is taken.
        var bodyReadingPaused = false
        /// Someone iterates ``body``.
        var bodyIterated = false
        /// Body bytes that went to the delegate alone, before ``body`` was iterated.
        var bodyBytesNotInBody = 0
    }

    /// How many body bytes may wait for the owner before the task stops reading from the
    /// connection (the server's writes then wait in its socket, not in this process).
    public static let bodyWindow = 1 << 20

    let shared = NIOLockedValueBox(Shared())
    let responsePromise: EventLoopPromise<HTTPURLResponse>
    let streamPromise: EventLoopPromise<StreamTask>
    let completionPromise: EventLoopPromise<Void>
    let bodyStream: AsyncThrowingStream<Data, any Error>
    let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(request: URLRequest, session: StreamSession, carrier: StreamTask) {
        self.request = request
        self.session = session
        self.carrier = carrier
        self.eventLoop = carrier.eventLoop
        self.responsePromise = eventLoop.makePromise()
        self.streamPromise = eventLoop.makePromise()
        self.completionPromise = eventLoop.makePromise()
        (bodyStream, bodyContinuation) = AsyncThrowingStream.makeStream()
        super.init(taskIdentifier: carrier.taskIdentifier)
    }

    deinit {
        // A task never resumed: its promises must not leak unfulfilled.
        let failure = StreamTaskError(.cancelled, "the data task was released")
        responsePromise.fail(failure)
        streamPromise.fail(failure)
        completionPromise.succeed(())
    }

    // MARK: Public state

    /// The response head, once it has arrived: an `HTTPURLResponse`, typed `URLResponse` as
    /// Apple's `URLSessionTask.response` is (``receiveResponse()`` returns it typed).
    public var response: URLResponse? { shared.withLockedValue { $0.response } }

    /// Why the task failed, once it has, as Apple's API reports it: a `URLError` whose
    /// `streamTaskError` has the library's detail. `nil` while running and after success.
    public override var error: (any Error)? { streamTaskError?.urlError }

    /// Why the task failed, once it has, with the library's detail; `nil` while running and
    /// after success.
    public var streamTaskError: StreamTaskError? { shared.withLockedValue { $0.error } }

    /// Bytes of the request handed to the system so far, its head included.
    public override var countOfBytesSent: Int64 { carrier.countOfBytesSent }

    /// Bytes of the response received so far, its head and framing included.
    public override var countOfBytesReceived: Int64 { carrier.countOfBytesReceived }

    /// The request body's length (0 without one).
    public override var countOfBytesExpectedToSend: Int64 { Int64(request.httpBody?.count ?? 0) }

    /// The response's `Content-Length`, once the head has arrived; otherwise
    /// `StreamSessionTask.transferSizeUnknown`.
    public override var countOfBytesExpectedToReceive: Int64 {
        guard let length = response?.expectedContentLength, length >= 0 else { return Self.transferSizeUnknown }
        return length
    }

    /// Where the task is in its life: `StreamSessionTask/State/completed` once the body has ended,
    /// the task was cancelled or failed, or it became a stream.
    public override var state: State {
        if shared.withLockedValue({ $0.phase == .completed }) { return .completed }
        return carrier.state
    }

    public var description: String {
        "StreamDataTask #\(taskIdentifier) \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
    }

    // MARK: Lifecycle

    /// Starts the task: waits for a connection slot if the session's limit for the host is
    /// reached, connects (through the proxy, if any), and sends the request. The delegate, if
    /// any, decides what to do with the response unless you did first; without one, the
    /// response waits for your decision. After ``suspend()`` it lets the carrier go on;
    /// otherwise calling it again does nothing.
    public override func resume() {
        if carrier.state == .completed {
            // Refused at creation (an invalid URL, an invalidated session).
            finish(error: carrier.streamTaskError ?? StreamTaskError(.connectionClosed, "the task could not start"))
            return
        }
        if !carrier.withShared({ $0.started }) { startResourceTimer() }
        carrier.resume()
    }

    /// Bounds the whole task by the session's `timeoutIntervalForResource`, as Apple's: if it
    /// has neither completed nor become a stream by then, it fails with `timedOut`.
    private func startResourceTimer() {
        let seconds = session.settings.timeoutIntervalForResource
        guard seconds > 0 else { return }
        let timer = eventLoop.scheduleTask(in: .seconds(seconds)) { [weak self] in
            guard let self, self.phaseIsNot(.becomingStream, .completed) else { return }
            self.finish(
                error: StreamTaskError(
                    .timedOut, "the data task took longer than its resource timeout (\(seconds) s)",
                    host: self.carrier.host, port: self.carrier.port))
            self.carrier.cancel()
        }
        // Done one way or the other, the timer has nothing left to do.
        completionPromise.futureResult.whenComplete { _ in timer.cancel() }
        streamPromise.futureResult.whenComplete { _ in timer.cancel() }
    }

    /// Resumes a task nobody resumed yet, and only such a task: the async forms start the task
    /// if needed, and must not resume one its owner suspended.
    func startIfNeverResumed() {
        if !carrier.withShared({ $0.started }) { resume() }
    }

    /// Suspends the stream task that carries the request (see `StreamTask/suspend()`); the
    /// stream ``becomeStream()`` hands over is then suspended too, until ``resume()``. The HTTP
    /// exchange itself goes on: the response's head and body keep arriving, within
    /// ``bodyWindow``. Does nothing before the first ``resume()`` or once the task completed.
    public override func suspend() {
        carrier.suspend()
    }

    /// Cancels the task: the connection closes, and the task completes with
    /// `StreamTaskError/Code/cancelled` (unless it has already become a stream).
    public override func cancel() {
        eventLoop.execute {
            guard self.phaseIsNot(.becomingStream, .completed) else { return }
            // Completed first: closing the connection makes the decoder report a cut-off body.
            self.finish(error: .cancelled)
            self.carrier.cancel()
        }
    }
}
