import Foundation
import NIOConcurrencyHelpers
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP/1.1 request over a session's connections, whose response you can take as a body or
/// turn into a stream task, like a `URLSessionDataTask` whose delegate answers
/// `.becomeStream`.
///
/// The request goes over a connection opened as a ``StreamTask``'s would be: the session's
/// proxy settings and connection limit apply, and an `https` (or `wss`) URL uses TLS from the
/// first byte with the session's ``StreamSession/Configuration/tls``. When the response head
/// arrives, the owner decides (``ResponseDisposition``):
/// - ``ResponseDisposition/allow``: the body arrives (content-length, chunked, or up to the end
///   of the connection), through ``body``, ``bodyData()`` or the delegate;
/// - ``ResponseDisposition/cancel``: the connection closes;
/// - ``ResponseDisposition/becomeStream``: the connection becomes a ``StreamTask`` with no
///   HTTP framing left. Its first bytes are whatever the server sent after the response head;
///   it carries ``StreamTask/originalRequest`` and ``StreamTask/response``. This is how a
///   `101 Switching Protocols` answer (a WebSocket, say) is taken over.
///
/// Who decides: the task's or the session's delegate, in
/// ``StreamSessionDelegate/streamSession(_:dataTask:didReceive:completionHandler:)`` (whose
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
/// One request per connection: the connection closes after the body. While the request runs,
/// the stream task that carries it is one of the session's ``StreamSession/allTasks`` (it is
/// the task ``becomeStream()`` returns); its delegate hears nothing about it until then.
public final class StreamDataTask: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: mutable state lives in `shared`, behind a lock; the promises are
    // thread-safe, and `exchange` is only touched on the carrier's event loop.

    /// What to do with a response once its head has arrived.
    public enum ResponseDisposition: Sendable, Equatable {
        /// Receive the body.
        case allow
        /// Close the connection; the task completes with ``StreamTaskError/Code/cancelled``.
        case cancel
        /// Turn the connection into a ``StreamTask`` with no HTTP framing left.
        case becomeStream
    }

    /// The request, as given.
    public let originalRequest: URLRequest
    /// The session the task belongs to.
    public let session: StreamSession

    let carrier: StreamTask
    let eventLoop: any EventLoop
    /// Set on the carrier's event loop once the HTTP handlers are in its pipeline.
    var exchange: HTTPExchangeHandler?

    private enum Phase {
        case waitingForResponse
        case deciding
        case receivingBody
        case becomingStream
        case completed
    }

    private struct Shared {
        var phase = Phase.waitingForResponse
        var response: HTTPURLResponse?
        var error: StreamTaskError?
        var callerDecides = false
        /// A decision made before the head arrived, carried out when it does.
        var earlyDisposition: ResponseDisposition?
        var delegate: (any StreamSessionDelegate)?
    }

    private let shared = NIOLockedValueBox(Shared())
    private let responsePromise: EventLoopPromise<HTTPURLResponse>
    private let streamPromise: EventLoopPromise<StreamTask>
    private let completionPromise: EventLoopPromise<Void>
    private let bodyStream: AsyncThrowingStream<Data, any Error>
    private let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(request: URLRequest, session: StreamSession, carrier: StreamTask) {
        self.originalRequest = request
        self.session = session
        self.carrier = carrier
        self.eventLoop = carrier.eventLoop
        self.responsePromise = eventLoop.makePromise()
        self.streamPromise = eventLoop.makePromise()
        self.completionPromise = eventLoop.makePromise()
        (bodyStream, bodyContinuation) = AsyncThrowingStream.makeStream()
    }

    deinit {
        // A task never resumed: its promises must not leak unfulfilled.
        let failure = StreamTaskError(.cancelled, "the data task was released")
        responsePromise.fail(failure)
        streamPromise.fail(failure)
        completionPromise.succeed(())
    }

    // MARK: Public state

    /// A number that identifies the task within its session: that of the stream task carrying it.
    public var taskIdentifier: Int { carrier.taskIdentifier }

    /// The response head, once it has arrived.
    public var response: HTTPURLResponse? { shared.withLockedValue { $0.response } }

    /// Why the task failed, once it has; `nil` while running and after success.
    public var error: StreamTaskError? { shared.withLockedValue { $0.error } }

    /// Where the task is in its life: ``StreamTask/State/completed`` once the body has ended,
    /// the task was cancelled or failed, or it became a stream.
    public var state: StreamTask.State {
        if shared.withLockedValue({ $0.phase == .completed }) { return .completed }
        return carrier.state
    }

    /// A delegate for this task only; when `nil`, the session's delegate hears about it.
    public var delegate: (any StreamSessionDelegate)? {
        get { shared.withLockedValue { $0.delegate } }
        set { shared.withLockedValue { $0.delegate = newValue } }
    }

    public var description: String {
        "StreamDataTask #\(taskIdentifier) \(originalRequest.httpMethod ?? "GET") \(originalRequest.url?.absoluteString ?? "?")"
    }

    // MARK: Lifecycle

    /// Starts the task: waits for a connection slot if the session's limit for the host is
    /// reached, connects (through the proxy, if any), and sends the request. The delegate
    /// decides what to do with the response unless ``receiveResponse()`` was called first.
    public func resume() {
        if carrier.state == .completed {
            // Refused at creation (an invalid URL, an invalidated session).
            finish(error: carrier.error ?? StreamTaskError(.connectionClosed, "the task could not start"))
            return
        }
        carrier.resume()
    }

    /// Cancels the task: the connection closes, and the task completes with
    /// ``StreamTaskError/Code/cancelled`` (unless it has already become a stream).
    public func cancel() {
        eventLoop.execute {
            guard self.phaseIsNot(.becomingStream, .completed) else { return }
            // Completed first: closing the connection makes the decoder report a cut-off body.
            self.finish(error: .cancelled)
            self.carrier.cancel()
        }
    }

    // MARK: Async use

    /// Resumes the task if needed and returns the response head once it has arrived. Called
    /// before the head arrives, it makes you the one who decides: call ``allow()``,
    /// ``cancel()`` or ``becomeStream()`` next.
    ///
    /// Cancelling the waiting Swift task cancels the data task.
    ///
    /// - Throws: The ``StreamTaskError`` the task failed with before a response arrived.
    public func receiveResponse() async throws -> HTTPURLResponse {
        shared.withLockedValue { shared in
            if shared.phase == .waitingForResponse { shared.callerDecides = true }
        }
        resume()
        let future = responsePromise.futureResult
        return try await withTaskCancellationHandler {
            try await future.get()
        } onCancel: {
            self.cancel()
        }
    }

    /// Asks for the body (the ``ResponseDisposition/allow`` disposition), once the head has
    /// arrived if it has not yet. Does nothing if the owner already decided.
    public func allow() {
        decide(.allow)
    }

    /// Turns the connection into a stream task (the ``ResponseDisposition/becomeStream``
    /// disposition) and returns it. Its first bytes are whatever the server sent after the
    /// response head.
    ///
    /// - Throws: ``StreamTaskError/Code/invalidArgument`` if the owner already chose another
    ///   disposition, or the error the task failed with.
    public func becomeStream() async throws -> StreamTask {
        _ = try await receiveResponse()
        decide(.becomeStream)
        return try await streamPromise.futureResult.get()
    }

    /// The body, chunk by chunk, as it arrives; iterating it allows the body if nobody has
    /// decided yet. It ends with the body, and throws if the task fails first. Iterate it once.
    /// Chunks that arrive before you iterate are kept for you (the body is not limited in size
    /// here: for large downloads, iterate as it arrives).
    public var body: Body { Body(task: self, chunks: bodyStream) }

    /// The body of a data task, as an async sequence of chunks; see ``StreamDataTask/body``.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = Data

        let task: StreamDataTask
        let chunks: AsyncThrowingStream<Data, any Error>

        /// Allows the body (if nobody has decided yet) and starts iterating it.
        public func makeAsyncIterator() -> AsyncThrowingStream<Data, any Error>.AsyncIterator {
            task.allow()
            return chunks.makeAsyncIterator()
        }
    }

    /// Allows the body if the owner has not decided yet, and returns all of it.
    public func bodyData() async throws -> Data {
        _ = try await receiveResponse()
        var all = Data()
        for try await chunk in body {
            all.append(chunk)
        }
        return all
    }

    /// Waits until the task has completed; returns the error it completed with, if any.
    @discardableResult
    public func waitUntilCompleted() async -> StreamTaskError? {
        _ = try? await completionPromise.futureResult.get()
        return error
    }

    // MARK: From the exchange (on the event loop)

    func responseArrived(_ response: HTTPURLResponse) {
        let sessionDelegate = session.delegate
        let (callerDecides, early, delegate) = shared.withLockedValue {
            shared -> (Bool, ResponseDisposition?, (any StreamSessionDelegate)?) in
            guard shared.phase == .waitingForResponse else { return (true, nil, nil) }
            shared.phase = .deciding
            shared.response = response
            return (shared.callerDecides, shared.earlyDisposition, shared.delegate ?? sessionDelegate)
        }
        responsePromise.succeed(response)
        if let early {
            decide(early)
            return
        }
        // Without a delegate, the caller decides whenever it gets to it.
        guard !callerDecides, let delegate else { return }
        let session = self.session
        session.delegateQueue.async {
            delegate.streamSession(session, dataTask: self, didReceive: response) { disposition in
                self.decide(disposition)
            }
        }
    }

    func bodyReceived(_ bytes: ByteBuffer) {
        let data = Data(buffer: bytes)
        bodyContinuation.yield(data)
        if let delegate = currentDelegate {
            let session = self.session
            session.delegateQueue.async { delegate.streamSession(session, dataTask: self, didReceive: data) }
        }
    }

    func bodyEnded() {
        finish(error: nil)
    }

    func failed(_ error: StreamTaskError) {
        finish(error: error.at(host: carrier.host, port: carrier.port))
    }

    /// The carrying stream task completed while it still carried this task.
    func carrierCompleted(_ error: StreamTaskError?) {
        let failure = error ?? StreamTaskError(.httpProtocolError, "the connection closed before the response was complete")
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
                        StreamTaskError(.invalidArgument, "the data task can no longer become a stream: its response was already handled")
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
        guard let exchange, let response else {
            finish(error: StreamTaskError(.connectionClosed, "the connection closed before the data task could become a stream"))
            return
        }
        do {
            carrier.becameStream(request: originalRequest, response: response)
            try exchange.becomeStream()
            self.exchange = nil
        } catch {
            carrier.cancel()
            finish(error: error as? StreamTaskError ?? StreamTaskError(.connectionFailed, "\(error)", underlying: error))
            return
        }
        streamPromise.succeed(carrier)
        if let delegate = currentDelegate {
            let (session, stream) = (self.session, carrier)
            session.delegateQueue.async { delegate.streamSession(session, dataTask: self, didBecome: stream) }
        }
        finish(error: nil)
    }

    // MARK: Completion

    private var currentDelegate: (any StreamSessionDelegate)? {
        shared.withLockedValue { $0.delegate } ?? session.delegate
    }

    private func phaseIsNot(_ phases: Phase...) -> Bool {
        let phase = shared.withLockedValue { $0.phase }
        return !phases.contains(phase)
    }

    private func finish(error: StreamTaskError?) {
        let first = shared.withLockedValue { shared -> Bool in
            guard shared.phase != .completed else { return false }
            shared.phase = .completed
            shared.error = error
            return true
        }
        guard first else { return }
        let failure = error ?? StreamTaskError(.connectionClosed, "the data task completed without a response")
        responsePromise.fail(failure)
        streamPromise.fail(error ?? StreamTaskError(.invalidArgument, "the data task did not become a stream"))
        if let error {
            bodyContinuation.finish(throwing: error)
        } else {
            bodyContinuation.finish()
        }
        let carrier = self.carrier
        carrier.onLoop { carrier.dataTask = nil }
        completionPromise.succeed(())
        if let delegate = currentDelegate {
            let session = self.session
            session.delegateQueue.async { delegate.streamSession(session, dataTask: self, didCompleteWithError: error) }
        }
    }
}
