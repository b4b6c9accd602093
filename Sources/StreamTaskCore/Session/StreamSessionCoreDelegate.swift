//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What a session tells its delegate, in this module's terms: the root of the delegate
/// protocols.
///
/// Programs that `import StreamTaskKit` implement Apple's protocols instead,
/// `StreamSessionCoreDelegate`, `StreamSessionCoreTaskDelegate`, `StreamSessionCoreStreamDelegate` and
/// `StreamSessionDataDelegate` (in StreamTaskHTTP, which has Foundation's networking types):
/// they refine these, add the authentication challenges with Apple's types, and let a delegate
/// ported from Darwin by the type rename alone be called. A program that uses this module
/// alone implements these protocols; the methods have the same names.
///
/// Every method has a default implementation. Callbacks arrive on the session's delegate queue,
/// one at a time and in the order the events happened; ``StreamTaskEvent`` documents when each
/// one fires. Errors are `URLError` values, as Apple's; `streamTaskError` has the library's
/// detail. The protocols are `Sendable` and marked `@preconcurrency`: code in the Swift 5
/// language mode, as most Darwin code is, conforms without warnings, as it does to Foundation's.
@preconcurrency public protocol StreamSessionCoreDelegate: AnyObject, Sendable {
    /// The session was invalidated and every one of its tasks has completed.
    func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?)
    /// A task's TLS handshake met a server certificate chain: decide whether to trust it.
    /// Called for the task's own TLS as a client (direct or after STARTTLS), not for the TLS to
    /// a proxy. The default leaves it to the library's evaluation (`.performDefaultHandling`).
    /// With StreamTaskKit, Apple's `urlSession(_:task:didReceive:completionHandler:)` gets it
    /// as a server trust challenge instead.
    func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveServerTrust trust: StreamServerTrust,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition) -> Void
    )
    /// A server asked the task's TLS handshake (as a client, direct or after STARTTLS) for a
    /// client certificate: answer `.useCredential` with an identity to present it,
    /// `.performDefaultHandling` to present the configuration's own
    /// (``StreamTLSConfiguration/certificateChain``, if any), or `.cancelAuthenticationChallenge`
    /// to end the handshake, which fails the task as cancelled. Only asked when the server asks.
    /// The default performs default handling. With StreamTaskKit, Apple's
    /// `urlSession(_:task:didReceive:completionHandler:)` gets it as a client certificate
    /// challenge instead.
    func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveClientCertificateRequest request: StreamClientCertificateRequest,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, StreamClientIdentity?) -> Void
    )
}

/// What a session tells its delegate about tasks (Apple's `URLSessionTaskDelegate`, without the
/// authentication challenge): see ``StreamSessionCoreDelegate``.
@preconcurrency public protocol StreamSessionCoreTaskDelegate: StreamSessionCoreDelegate {
    /// The task's final metrics, delivered once just before it completes.
    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics)
    /// The task completed: `nil` after an orderly close, a `URLError` otherwise.
    func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?)
}

/// What a session tells its delegate about stream tasks (Apple's `URLSessionStreamDelegate`),
/// and the library's viability callback beside Apple's better-route one: see
/// ``StreamSessionCoreDelegate``.
@preconcurrency public protocol StreamSessionCoreStreamDelegate: StreamSessionCoreTaskDelegate {
    /// No more bytes will arrive on the task (the peer's FIN, or `closeRead()`). Not called
    /// when a TLS connection is cut without close_notify: reads end with
    /// ``StreamTaskError/Code/tlsTruncated`` instead.
    func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask)
    /// `closeWrite()` took effect: the peer has been sent the end of the stream.
    func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask)
    /// The system would now reach the task's peer by a better route than the connection's;
    /// the connection still works.
    func urlSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamSessionStreamTask)
    /// The task handed its connection over with ``StreamTask/captureStreams()``. The streams
    /// are yours: open them, and read and write them off the event loops and Swift's
    /// cooperative pool.
    func urlSession(
        _ session: StreamSession,
        streamTask: StreamSessionStreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    )
    /// The library's own: the task's local address or interface went away (`false`) or came
    /// back (`true`).
    func urlSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamSessionStreamTask, isViable: Bool)
}

extension StreamSessionCoreDelegate {
    public func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveServerTrust trust: StreamServerTrust,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition) -> Void
    ) {
        completionHandler(.performDefaultHandling)
    }
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveClientCertificateRequest request: StreamClientCertificateRequest,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, StreamClientIdentity?) -> Void
    ) {
        completionHandler(.performDefaultHandling, nil)
    }
}

extension StreamSessionCoreTaskDelegate {
    public func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics
    ) {}
    public func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?)
    {}
}

extension StreamSessionCoreStreamDelegate {
    public func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(
        _ session: StreamSession,
        streamTask: StreamSessionStreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {}
    public func urlSession(
        _ session: StreamSession, viabilityDidChangeFor streamTask: StreamSessionStreamTask, isViable: Bool
    ) {}
}

/// A stream task under the name the porting rule gives `URLSessionStreamTask`.
public typealias StreamSessionStreamTask = StreamTask
