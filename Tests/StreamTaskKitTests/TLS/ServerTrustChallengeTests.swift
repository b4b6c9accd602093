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
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server trust as Darwin code decides it: an authentication challenge for the task's TLS,
/// against `openssl s_server` with a self-signed certificate the session does not trust.
@Suite(.timeLimit(.minutes(1))) struct ServerTrustChallengeTests {
    /// Answers server trust challenges with `disposition`, at the task or the session level, and
    /// writes down what it saw.
    final class ChallengeDelegate: NSObject, StreamSessionStreamDelegate, @unchecked Sendable {
        let disposition: StreamSession.AuthChallengeDisposition
        let seen = NIOLockedValueBox<[String]>([])

        init(_ disposition: StreamSession.AuthChallengeDisposition) {
            self.disposition = disposition
        }

        func urlSession(
            _ session: StreamSession,
            task: StreamSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let space = challenge.protectionSpace
            guard space.authenticationMethod == streamServerTrustAuthenticationMethod,
                let trust = space.streamServerTrust
            else {
                seen.withLockedValue { $0.append("not server trust") }
                return completionHandler(.performDefaultHandling, nil)
            }
            let verdict = (try? trust.evaluate()) == nil ? "untrusted" : "trusted"
            seen.withLockedValue {
                $0.append(
                    "\(space.host):\(space.port) \(trust.certificateChain.count) \(verdict) task \(task.taskIdentifier)"
                )
            }
            completionHandler(disposition, disposition == .useCredential ? URLCredential(streamTrust: trust) : nil)
        }
    }

    /// Only the session-level method, as many Darwin delegates have it.
    final class SessionLevelDelegate: NSObject, StreamSessionDelegate, @unchecked Sendable {
        let calls = NIOLockedValueBox(0)

        func urlSession(
            _ session: StreamSession,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            calls.withLockedValue { $0 += 1 }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    /// The core module's own form, without Foundation's challenge types.
    final class CoreDelegate: StreamSessionCoreTaskDelegate {
        func urlSession(
            _ session: StreamSession,
            task: StreamSessionTask,
            didReceiveServerTrust trust: StreamServerTrust,
            completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition) -> Void
        ) {
            completionHandler(
                trust.defaultEvaluationError?.code == .tlsUntrustedCertificate
                    ? .useCredential : .cancelAuthenticationChallenge)
        }
    }

    /// The async form of the task-level method, as Swift imports Apple's.
    final class AsyncTaskLevelDelegate: NSObject, StreamSessionStreamDelegate, @unchecked Sendable {
        let calls = NIOLockedValueBox(0)

        func urlSession(
            _ session: StreamSession, task: StreamSessionTask, didReceive challenge: URLAuthenticationChallenge
        ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?) {
            calls.withLockedValue { $0 += 1 }
            guard let trust = challenge.protectionSpace.streamServerTrust else { return (.performDefaultHandling, nil) }
            return (.useCredential, URLCredential(streamTrust: trust))
        }
    }

    /// The async form of the session-level method alone, on a stream delegate: the task-level
    /// defaults lead to it.
    final class AsyncSessionLevelDelegate: NSObject, StreamSessionStreamDelegate, @unchecked Sendable {
        let calls = NIOLockedValueBox(0)

        func urlSession(
            _ session: StreamSession, didReceive challenge: URLAuthenticationChallenge
        ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?) {
            calls.withLockedValue { $0 += 1 }
            return (.cancelAuthenticationChallenge, nil)
        }
    }

    private func task(to server: OpenSSLServer, delegate: any StreamSessionCoreDelegate) async throws -> StreamTask {
        let certificates = try await TestCertificates.get()
        let configuration = StreamSessionConfiguration(tls: try certificates.clientConfiguration(), proxy: .direct)
        // A delegate may trust what default evaluation refuses only under an ATS exception.
        configuration.transportSecurity = .insecureLoopback
        let session = StreamSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        task.resume()
        return task
    }

    private func selfSignedServer() async throws -> OpenSSLServer {
        let certificates = try await TestCertificates.get()
        return try await OpenSSLServer.start(certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey)
    }

    @Test func useCredentialTrustsAServerTheDefaultRefuses() async throws {
        let server = try await selfSignedServer()
        let delegate = ChallengeDelegate(.useCredential)
        let task = try await task(to: server, delegate: delegate)
        try await task.startTLS(timeout: 10)
        try await task.write("hello\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("olleh\n".utf8))
        #expect(
            delegate.seen.withLockedValue { $0 } == ["127.0.0.1:\(server.port) 1 untrusted task \(task.taskIdentifier)"]
        )
        task.cancel()
    }

    @Test func performDefaultHandlingRefusesAsWithoutADelegate() async throws {
        let server = try await selfSignedServer()
        let delegate = ChallengeDelegate(.performDefaultHandling)
        let task = try await task(to: server, delegate: delegate)
        await expectStreamError(.tlsUntrustedCertificate) { try await task.startTLS(timeout: 10) }
        #expect(
            await eventually { (task.error as? URLError)?.code == .serverCertificateUntrusted },
            "\(String(describing: task.error))")
        #expect(delegate.seen.withLockedValue { $0.count } == 1)
    }

    @Test func aSessionLevelDelegateThatCancelsFailsTheTaskAsCancelled() async throws {
        let server = try await selfSignedServer()
        let delegate = SessionLevelDelegate()
        let task = try await task(to: server, delegate: delegate)
        await expectStreamError(.cancelled) { try await task.startTLS(timeout: 10) }
        #expect(await eventually { (task.error as? URLError)?.code == .cancelled }, "\(String(describing: task.error))")
        #expect(delegate.calls.withLockedValue { $0 } == 1)
    }

    @Test func theAsyncTaskLevelFormDecides() async throws {
        let server = try await selfSignedServer()
        let delegate = AsyncTaskLevelDelegate()
        let task = try await task(to: server, delegate: delegate)
        try await task.startTLS(timeout: 10)
        try await task.write("async\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("cnysa\n".utf8))
        #expect(delegate.calls.withLockedValue { $0 } == 1)
        task.cancel()
    }

    @Test func theAsyncSessionLevelFormDecidesBehindTheTaskLevelDefaults() async throws {
        let server = try await selfSignedServer()
        let delegate = AsyncSessionLevelDelegate()
        let task = try await task(to: server, delegate: delegate)
        await expectStreamError(.cancelled) { try await task.startTLS(timeout: 10) }
        #expect(delegate.calls.withLockedValue { $0 } == 1)
    }

    @Test func theCoreModulesOwnFormDecidesToo() async throws {
        let server = try await selfSignedServer()
        let task = try await task(to: server, delegate: CoreDelegate())
        try await task.startTLS(timeout: 10)
        try await task.write("core\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("eroc\n".utf8))
        task.cancel()
    }
}
