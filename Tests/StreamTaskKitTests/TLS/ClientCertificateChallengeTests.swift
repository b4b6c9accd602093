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

/// A server that asks for a client certificate, as Darwin code meets it: a client certificate
/// challenge, answered with an identity. Against `openssl s_server -Verify 1`, which requires a
/// certificate of the test CA, and plain `s_server`, which asks for none.
@Suite(.timeLimit(.minutes(1))) struct ClientCertificateChallengeTests {
    /// Answers client certificate challenges with `disposition` (and the test client's identity
    /// for `.useCredential`), server trust with default handling, and writes down what it saw.
    final class IdentityDelegate: NSObject, StreamSessionStreamDelegate, @unchecked Sendable {
        let disposition: StreamSession.AuthChallengeDisposition
        let identity: StreamClientIdentity
        let seen = NIOLockedValueBox<[String]>([])

        init(_ disposition: StreamSession.AuthChallengeDisposition, identity: StreamClientIdentity) {
            self.disposition = disposition
            self.identity = identity
        }

        func urlSession(
            _ session: StreamSession,
            task: StreamSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let space = challenge.protectionSpace
            guard space.authenticationMethod == streamClientCertificateAuthenticationMethod else {
                return completionHandler(.performDefaultHandling, nil)
            }
            seen.withLockedValue { $0.append("client certificate for \(space.host):\(space.port)") }
            let credential = disposition == .useCredential ? StreamIdentityCredential(identity: identity) : nil
            completionHandler(disposition, credential)
        }
    }

    /// Connects to `server` on `localhost` trusting the test CA, with `delegate`, and returns
    /// why the handshake (and a reversed line after it) failed, or `nil` when it worked.
    private func connect(to server: OpenSSLServer, delegate: IdentityDelegate) async throws -> StreamTaskError? {
        let certificates = try await TestCertificates.get()
        let session = StreamSession(
            configuration: .init(tls: try certificates.clientConfiguration()), delegate: delegate, delegateQueue: nil)
        let task = session.streamTask(withHostName: "localhost", port: server.port)
        task.resume()
        defer { task.cancel() }
        do {
            try await task.startTLS(timeout: 10)
            try await task.write("who am i\n")
            let line = try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
            #expect(line == Data("i ma ohw\n".utf8))
            return nil
        } catch let error as StreamTaskError {
            return error
        }
    }

    private func identity() async throws -> StreamClientIdentity {
        let certificates = try await TestCertificates.get()
        return StreamClientIdentity(
            certificateChain: try TLSCertificate.chain(pemFile: certificates.clientPEM),
            privateKey: try TLSPrivateKey(pemFile: certificates.clientKey))
    }

    private func requiringServer() async throws -> OpenSSLServer {
        let certificates = try await TestCertificates.get()
        return try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-Verify", "1", "-CAfile",
            certificates.caPEM, "-verify_return_error")
    }

    @Test func theIdentityGivenForTheChallengeIsPresented() async throws {
        let server = try await requiringServer()
        let delegate = IdentityDelegate(.useCredential, identity: try await identity())
        let error = try await connect(to: server, delegate: delegate)
        #expect(error == nil, "\(String(describing: error))")
        #expect(delegate.seen.withLockedValue { $0 } == ["client certificate for localhost:\(server.port)"])
    }

    @Test func withoutAnIdentityTheServerRefusesTheHandshake() async throws {
        let server = try await requiringServer()
        let delegate = IdentityDelegate(.performDefaultHandling, identity: try await identity())
        let error = try await connect(to: server, delegate: delegate)
        #expect(error != nil, "a server that requires a certificate accepted none")
        #expect(error?.code != .cancelled)
        #expect(delegate.seen.withLockedValue { $0 }.count == 1)
    }

    @Test func aCancelledChallengeFailsTheTaskAsCancelled() async throws {
        let server = try await requiringServer()
        let delegate = IdentityDelegate(.cancelAuthenticationChallenge, identity: try await identity())
        let error = try await connect(to: server, delegate: delegate)
        #expect(error?.code == .cancelled)
        #expect(error?.message.contains("client certificate") == true, "\(String(describing: error))")
        #expect(error?.urlError.code == .cancelled)
    }

    @Test func aServerThatAsksForNoCertificateBringsNoChallenge() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.serverPEM, key: certificates.serverKey)
        let delegate = IdentityDelegate(.cancelAuthenticationChallenge, identity: try await identity())
        let error = try await connect(to: server, delegate: delegate)
        #expect(error == nil, "\(String(describing: error))")
        #expect(delegate.seen.withLockedValue { $0 }.isEmpty)
    }
}
