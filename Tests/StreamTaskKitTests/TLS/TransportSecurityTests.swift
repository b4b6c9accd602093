//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// App Transport Security against `openssl s_server` set up to break each rule: each server is
/// refused with the rule's own error, naming the exception, and accepted once it is set.
@Suite(.timeLimit(.minutes(1))) struct TransportSecurityTests {
    /// OpenSSL 3 refuses to serve TLS 1.1, a 1024-bit key or a SHA-1 signature above level 0.
    static let anySecurityLevel = "DEFAULT:@SECLEVEL=0"

    /// A task to 127.0.0.1 (or `host`) on `server` (which the caller keeps: an `OpenSSLServer`
    /// dies with its last reference), which starts TLS with the session's defaults
    /// (TLS 1.0 as its own floor, as Apple's) and trusts the test CA, under `security`.
    private func startTLS(
        to server: OpenSSLServer, host: String = "127.0.0.1", security: StreamTransportSecurity,
        tls change: (inout StreamTLSConfiguration) -> Void = { _ in },
        delegate: (any StreamSessionCoreDelegate)? = nil
    ) async throws -> StreamTask {
        let certificates = try await TestCertificates.get()
        var tls = try certificates.clientConfiguration { $0.minimumVersion = .tls1_0 }
        change(&tls)
        let configuration = StreamSessionConfiguration(tls: tls, proxy: .direct)
        configuration.transportSecurity = security
        let session = StreamSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.streamTask(withHostName: host, port: server.port)
        task.resume()
        try await task.startTLS(timeout: 10)
        return task
    }

    /// ATS's defaults with one exception for 127.0.0.1.
    private func excepting(_ exception: StreamTransportSecurity.DomainException) -> StreamTransportSecurity {
        StreamTransportSecurity(exceptionDomains: ["127.0.0.1": exception])
    }

    /// The line `text` goes to the server and comes back reversed.
    private func expectEcho(_ task: StreamTask, _ text: String = "secure") async throws {
        try await task.write(text + "\n")
        let echoed = try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
        #expect(echoed == Data((String(text.reversed()) + "\n").utf8))
        task.cancel()
    }

    @Test func aServerThatMeetsTheRulesIsAcceptedWithForwardSecrecy() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_2")
        let task = try await startTLS(to: server, security: StreamTransportSecurity())
        #expect(task.metrics.negotiatedTLSVersion == "TLS 1.2")
        #expect(task.metrics.negotiatedCipherSuite?.hasPrefix("TLS_ECDHE_") == true, "\(task.metrics)")
        try await expectEcho(task)
    }

    @Test func tls11IsRefusedUntilTheExceptionAllowsIt() async throws {
        let certificates = try await TestCertificates.get()
        let refusing = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_1", "-cipher",
            Self.anySecurityLevel)
        let error = await expectStreamError(.transportSecurityMinimumVersion) {
            try await startTLS(to: refusing, security: StreamTransportSecurity())
        }
        #expect(error?.message.contains("TLS 1.2 or newer") == true, "\(String(describing: error))")
        #expect(error?.message.contains("NSExceptionMinimumTLSVersion") == true)
        #expect(error?.message.contains("an NSExceptionDomains entry for \"127.0.0.1\"") == true)
        #expect(error?.urlError.code == .secureConnectionFailed)

        let allowing = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_1", "-cipher",
            Self.anySecurityLevel)
        let task = try await startTLS(to: allowing, security: excepting(.init(minimumTLSVersion: .tls1_1)))
        #expect(task.metrics.negotiatedTLSVersion == "TLS 1.1")
        try await expectEcho(task)
    }

    @Test func aSuiteWithoutForwardSecrecyIsRefusedUntilTheExceptionAllowsIt() async throws {
        let certificates = try await TestCertificates.get()
        let refusing = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_2", "-cipher", "AES128-GCM-SHA256")
        let error = await expectStreamError(.transportSecurityCipherSuite) {
            try await startTLS(to: refusing, security: StreamTransportSecurity())
        }
        #expect(
            error?.message.contains("NSExceptionRequiresForwardSecrecy to NO") == true, "\(String(describing: error))")
        #expect(error?.urlError.code == .secureConnectionFailed)

        let allowing = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_2", "-cipher", "AES128-GCM-SHA256")
        let task = try await startTLS(to: allowing, security: excepting(.init(requiresForwardSecrecy: false)))
        #expect(task.metrics.negotiatedCipherSuite == "TLS_RSA_WITH_AES_128_GCM_SHA256")
        try await expectEcho(task)
    }

    @Test func a1024BitKeyIsRefusedAndOnlyAPinUnderBothExceptionsAcceptsIt() async throws {
        let certificates = try await TestCertificates.get()
        func server() async throws -> OpenSSLServer {
            try await OpenSSLServer.start(
                certificate: certificates.weakKeyPEM, key: certificates.weakKey, "-cipher", Self.anySecurityLevel)
        }
        let refused = await expectStreamError(.transportSecurityKeySize) {
            try await startTLS(to: try await server(), security: StreamTransportSecurity())
        }
        #expect(refused?.message.contains("RSA 1024-bit") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("NSExceptionRequiresForwardSecrecy to NO") == true)

        // ATS lets the key pass; chain verification still does not, and says why.
        let untrusted = await expectStreamError(.tlsUntrustedCertificate) {
            try await startTLS(to: try await server(), security: excepting(.init(requiresForwardSecrecy: false)))
        }
        #expect(untrusted?.message.contains("1024") == true, "\(String(describing: untrusted))")

        let pin = TLSPin.certificateSHA256(try TLSCertificate(pemFile: certificates.weakKeyPEM).sha256Fingerprint)
        let accepting = try await server()
        let task = try await startTLS(
            to: accepting,
            security: excepting(.init(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false))
        ) {
            $0.certificateVerification = .none
            $0.pins = [pin]
        }
        try await expectEcho(task)
    }

    @Test func aSHA1SignatureIsRefusedEvenUnderADomainException() async throws {
        let certificates = try await TestCertificates.get()
        func server() async throws -> OpenSSLServer {
            try await OpenSSLServer.start(
                certificate: certificates.sha1SignedPEM, key: certificates.serverKey, "-cipher", Self.anySecurityLevel)
        }
        let refused = await expectStreamError(.transportSecurityHashAlgorithm) {
            try await startTLS(to: try await server(), security: StreamTransportSecurity())
        }
        #expect(refused?.message.contains("sha1WithRSAEncryption") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("NSAllowsArbitraryLoads") == true)
        let everything = StreamTransportSecurity.DomainException(
            allowsInsecureHTTPLoads: true, minimumTLSVersion: .tls1_0, requiresForwardSecrecy: false)
        await expectStreamError(.transportSecurityHashAlgorithm) {
            try await startTLS(to: try await server(), security: excepting(everything))
        }
        // With arbitrary loads and no entry for the host, ATS does not apply.
        let accepting = try await server()
        let task = try await startTLS(to: accepting, security: StreamTransportSecurity(allowsArbitraryLoads: true))
        try await expectEcho(task)
    }

    @Test func aPinAloneMayNotLoosenTrustWithoutTheException() async throws {
        let certificates = try await TestCertificates.get()
        let pin = TLSPin.certificateSHA256(try TLSCertificate(pemFile: certificates.selfSignedPEM).sha256Fingerprint)
        let server = try await OpenSSLServer.start(
            certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey)
        let error = await expectStreamError(.transportSecurityTrust) {
            try await startTLS(to: server, security: StreamTransportSecurity()) {
                $0.certificateVerification = .none
                $0.pins = [pin]
            }
        }
        #expect(error?.message.contains("certificate verification (.none)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("NSExceptionAllowsInsecureHTTPLoads to YES") == true)
        #expect(error?.message.contains("NSAllowsLocalNetworking") == true)
        #expect(error?.urlError.code == .serverCertificateUntrusted)
    }

    @Test func aDelegateMayNotTrustWhatDefaultEvaluationRefusesWithoutTheException() async throws {
        let certificates = try await TestCertificates.get()
        let delegate = ServerTrustChallengeTests.ChallengeDelegate(.useCredential)
        let server = try await OpenSSLServer.start(
            certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey)
        let error = await expectStreamError(.transportSecurityTrust) {
            try await startTLS(to: server, security: StreamTransportSecurity(), delegate: delegate)
        }
        #expect(error?.message.contains("the delegate") == true, "\(String(describing: error))")
        #expect(delegate.seen.withLockedValue { $0.count } == 1, "the delegate was asked, and overruled")
    }

    @Test func anUnqualifiedNameIsExemptUntilAnEntryNamesIt() async throws {
        let certificates = try await TestCertificates.get()
        func server() async throws -> OpenSSLServer {
            try await OpenSSLServer.start(
                certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_1", "-cipher",
                Self.anySecurityLevel)
        }
        let accepting = try await server()
        let task = try await startTLS(to: accepting, host: "localhost", security: StreamTransportSecurity())
        #expect(task.metrics.negotiatedTLSVersion == "TLS 1.1")
        try await expectEcho(task)
        // An entry, even an empty one, brings the name under the rules.
        let named = StreamTransportSecurity(exceptionDomains: ["localhost": .init()])
        let error = await expectStreamError(.transportSecurityMinimumVersion) {
            try await startTLS(to: try await server(), host: "localhost", security: named)
        }
        #expect(
            error?.message.contains("its NSExceptionDomains entry \"localhost\"") == true,
            "\(String(describing: error))")
    }

    @Test func anHTTPDataTaskIsRefusedBeforeItConnects() async throws {
        let server = try await LoopbackServer.start()
        let configuration = StreamSessionConfiguration(proxy: .direct)
        let session = StreamSession(configuration: configuration)
        let dataTask = session.dataTask(
            with: URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/"))))
        dataTask.resume()
        let error = await dataTask.waitUntilCompleted()
        #expect(error?.code == .transportSecurityRequiresSecureConnection, "\(String(describing: error))")
        #expect(error?.message.contains("http://127.0.0.1:\(server.port)/ is plaintext HTTP") == true)
        #expect(error?.message.contains("NSExceptionAllowsInsecureHTTPLoads to YES") == true)
        #expect((dataTask.error as? URLError)?.code == .appTransportSecurityRequiresSecureConnection)
        #expect(dataTask.error.map { ($0 as NSError).code } == -1022)
        #expect(server.listener.metrics.acceptedConnections == 0, "nothing was sent")
        await server.stop()
    }

    @Test(arguments: [
        StreamTransportSecurity(allowsLocalNetworking: true),
        StreamTransportSecurity(exceptionDomains: ["127.0.0.0/8": .init(allowsInsecureHTTPLoads: true)]),
        StreamTransportSecurity(allowsArbitraryLoads: true),
    ])
    func anHTTPDataTaskGoesAheadUnderAnException(security: StreamTransportSecurity) async throws {
        let server = try await LoopbackServer.start()
        let configuration = StreamSessionConfiguration(proxy: .direct)
        configuration.transportSecurity = security
        let dataTask = StreamSession(configuration: configuration)
            .dataTask(with: URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/allowed"))))
        let answering = Task {
            var accepted = server.listener.connections.makeAsyncIterator()
            guard let peer = await accepted.next() else { return }
            while let line = try? await peer.readLine(), line != "\r\n" {}
            try? await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { answering.cancel() }
        dataTask.resume()
        #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "ok")
        await server.stop()
    }
}
