//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Callbacks about a session, as `URLSessionDelegate`: the root of Apple's delegate protocols.
///
/// The protocols have Apple's names, hierarchy and methods, so a delegate written for
/// `URLSession` ports by the type rename alone: ``StreamSessionTaskDelegate`` adds what every
/// task reports, ``StreamSessionStreamDelegate`` what stream tasks report, and
/// ``StreamSessionDataDelegate`` what data tasks report. A delegate is asked a method only if
/// it declares the protocol that has it, as on Darwin. Every method has a default.
///
/// They refine StreamTaskCore's protocols (`StreamSessionCoreDelegate` and the rest), which
/// carry everything but the authentication challenges; these add the challenges, with
/// Foundation's `URLAuthenticationChallenge` and `URLCredential`.
@preconcurrency public protocol StreamSessionDelegate: StreamSessionCoreDelegate {
    /// A challenge for the whole session, as Apple's: server trust, when the task-level method
    /// is not implemented (its default asks this one). The challenge's protection space has the
    /// method `NSURLAuthenticationMethodServerTrust` and, in
    /// `protectionSpace.streamServerTrust`, the chain and the library's verdict. The default
    /// performs the default handling.
    func urlSession(
        _ session: StreamSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
    )
    /// The async form of the method above, as Swift imports Apple's: implement either. The
    /// completion-handler form's default asks this one; this one's default performs the
    /// default handling.
    func urlSession(
        _ session: StreamSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?)
}

/// Callbacks about a session's tasks, as `URLSessionTaskDelegate`.
@preconcurrency public protocol StreamSessionTaskDelegate: StreamSessionDelegate, StreamSessionCoreTaskDelegate {
    /// A challenge for one task, as Apple's: server trust during the task's TLS handshake (see
    /// ``StreamSessionDelegate/urlSession(_:didReceive:completionHandler:)``). The default asks
    /// the session-level method.
    func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
    )
    /// The async form of the method above, as Swift imports Apple's: implement either. The
    /// completion-handler form's default asks this one; this one's default asks the
    /// session-level method.
    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didReceive challenge: URLAuthenticationChallenge
    ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?)
}

/// Callbacks about a session's stream tasks, as `URLSessionStreamDelegate`: read and write
/// closed, better route, stream handover, and the library's viability callback.
@preconcurrency public protocol StreamSessionStreamDelegate: StreamSessionTaskDelegate, StreamSessionCoreStreamDelegate
{}

extension StreamSessionDelegate {
    public func urlSession(
        _ session: StreamSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        Task {
            let (disposition, credential) = await self.urlSession(session, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    public func urlSession(
        _ session: StreamSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?) {
        (.performDefaultHandling, nil)
    }

    /// A session-level delegate hears of server trust as Apple's does: a challenge.
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveServerTrust trust: StreamServerTrust,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition) -> Void
    ) {
        urlSession(session, didReceive: ServerTrustChallenge.make(trust)) { disposition, _ in
            completionHandler(disposition)
        }
    }

    /// A session-level delegate hears of a client certificate request as Apple's does: a
    /// challenge, answered with a ``StreamIdentityCredential``.
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveClientCertificateRequest request: StreamClientCertificateRequest,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, StreamClientIdentity?) -> Void
    ) {
        urlSession(session, didReceive: ClientCertificateChallenge.make(request)) { disposition, credential in
            completionHandler(disposition, ClientCertificateChallenge.identity(in: credential))
        }
    }
}

extension StreamSessionTaskDelegate {
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        Task {
            let (disposition, credential) = await self.urlSession(session, task: task, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    public func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didReceive challenge: URLAuthenticationChallenge
    ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?) {
        await firstAnswer { answer in
            self.urlSession(session, didReceive: challenge) { answer(($0, $1)) }
        }
    }

    /// A task delegate hears of server trust as Apple's does: a task-level challenge.
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveServerTrust trust: StreamServerTrust,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition) -> Void
    ) {
        urlSession(session, task: task, didReceive: ServerTrustChallenge.make(trust)) { disposition, _ in
            completionHandler(disposition)
        }
    }

    /// A task delegate hears of a client certificate request as Apple's does: a task-level
    /// challenge, answered with a ``StreamIdentityCredential``.
    public func urlSession(
        _ session: StreamSession,
        task: StreamSessionTask,
        didReceiveClientCertificateRequest request: StreamClientCertificateRequest,
        completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, StreamClientIdentity?) -> Void
    ) {
        urlSession(session, task: task, didReceive: ClientCertificateChallenge.make(request)) {
            disposition, credential in
            completionHandler(disposition, ClientCertificateChallenge.identity(in: credential))
        }
    }
}
