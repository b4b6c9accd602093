import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Callbacks about a session and its tasks, shaped like `URLSessionStreamDelegate`.
///
/// Every method has an empty default implementation: implement the ones you need. Callbacks
/// arrive on the session's delegate queue, one at a time and in the order the events happened;
/// ``StreamTaskEvent`` documents when each one fires.
public protocol StreamSessionDelegate: AnyObject, Sendable {
    /// No more bytes will arrive on the task (the peer's FIN, or `closeRead()`). Not called
    /// when a TLS connection is cut without close_notify: reads end with
    /// ``StreamTaskError/Code/tlsTruncated`` instead.
    func streamSession(_ session: StreamSession, readClosedFor streamTask: StreamTask)
    /// `closeWrite()` took effect: the peer has been sent the end of the stream.
    func streamSession(_ session: StreamSession, writeClosedFor streamTask: StreamTask)
    /// The task's final metrics, delivered once just before it completes.
    func streamSession(_ session: StreamSession, task: StreamTask, didFinishCollecting metrics: StreamTaskMetrics)
    /// The task completed: `nil` after an orderly close, the error otherwise.
    func streamSession(_ session: StreamSession, task: StreamTask, didCompleteWithError error: (any Error)?)
    /// The session was invalidated and every one of its tasks has completed.
    func streamSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?)
    /// The system would now reach the task's peer by a better route than the connection's
    /// (like `urlSession(_:betterRouteDiscoveredFor:)`); the connection still works.
    func streamSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamTask)
    /// The task's local address or interface went away (`false`) or came back (`true`).
    func streamSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamTask, isViable: Bool)

    // MARK: Data tasks and stream handover (DataTasks.md)

    /// A data task's response head arrived: call `completionHandler` (once, from any thread)
    /// with what to do. Not called when the task's owner awaited
    /// ``StreamDataTask/receiveResponse()`` or decided before the head arrived. The default
    /// allows the body.
    func streamSession(
        _ session: StreamSession,
        dataTask: StreamDataTask,
        didReceive response: HTTPURLResponse,
        completionHandler: @escaping @Sendable (StreamDataTask.ResponseDisposition) -> Void
    )
    /// A chunk of a data task's body arrived (after an ``StreamDataTask/ResponseDisposition/allow``).
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didReceive data: Data)
    /// A data task became a stream task (``StreamDataTask/ResponseDisposition/becomeStream``);
    /// the data task completes next. Like `urlSession(_:dataTask:didBecome:)`.
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didBecome streamTask: StreamTask)
    /// A data task completed: `nil` after the whole body, or once it became a stream.
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didCompleteWithError error: (any Error)?)
    /// A stream task handed its connection over with ``StreamTask/captureStreams()``; like
    /// `urlSession(_:streamTask:didBecome:outputStream:)`. The streams are yours: open them,
    /// and read and write them off the event loops and Swift's cooperative pool.
    func streamSession(
        _ session: StreamSession,
        streamTask: StreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    )
}

extension StreamSessionDelegate {
    public func streamSession(_ session: StreamSession, readClosedFor streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, writeClosedFor streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, task: StreamTask, didFinishCollecting metrics: StreamTaskMetrics) {}
    public func streamSession(_ session: StreamSession, task: StreamTask, didCompleteWithError error: (any Error)?) {}
    public func streamSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func streamSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamTask, isViable: Bool) {}
    public func streamSession(
        _ session: StreamSession,
        dataTask: StreamDataTask,
        didReceive response: HTTPURLResponse,
        completionHandler: @escaping @Sendable (StreamDataTask.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }
    public func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didReceive data: Data) {}
    public func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didBecome streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didCompleteWithError error: (any Error)?) {}
    public func streamSession(
        _ session: StreamSession,
        streamTask: StreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {}
}
