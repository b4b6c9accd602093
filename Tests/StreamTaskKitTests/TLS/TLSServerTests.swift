//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// Our listener's tasks as TLS servers, against `openssl s_client`.
@Suite(.timeLimit(.minutes(1))) struct TLSServerTests {
    @Test func aListenerCanBeTLSFromTheFirstByte() async throws {
        let certificates = try await TestCertificates.get()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: try certificates.serverConfiguration())
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let client = try OpenSSLClient.start(
            port: try #require(listener.port),
            "-CAfile", certificates.caPEM, "-verify_return_error", "-servername", "localhost")
        client.send("hello over TLS\r\n")
        let peer = try #require(await accepted.next())
        #expect(try await peer.readLine() == "hello over TLS\r\n")
        try await peer.write("HELLO BACK\r\n")
        peer.closeWrite()
        #expect(await client.output(containing: "HELLO BACK\r\n") == "HELLO BACK\r\n")
        #expect(peer.metrics.negotiatedTLSVersion == "TLS 1.3")
        #expect(peer.metrics.negotiatedCipherSuite?.hasPrefix("TLS_") == true)
        #expect(peer.metrics.secureConnectionEndDate != nil)
        await listener.shutdown(gracePeriod: 0)
    }

    /// A few lines of SMTP, enough for `openssl s_client -starttls smtp`.
    @Test func opensslStartTLSSMTPUpgradesAgainstOurServer() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = try OpenSSLClient.start(
            port: server.port, "-starttls", "smtp",
            "-CAfile", certificates.caPEM, "-verify_return_error", "-servername", "localhost")
        let peer = try await server.accept(&accepted)

        try await peer.write("220 test.invalid ESMTP ready\r\n")
        #expect(try await peer.readLine().hasPrefix("EHLO "))
        try await peer.write("250-test.invalid\r\n250 STARTTLS\r\n")
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        try await peer.write("220 go ahead\r\n")
        try await peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
        #expect(peer.metrics.negotiatedTLSVersion != nil)

        client.send("NOOP\r\n")
        #expect(try await peer.readLine() == "NOOP\r\n")
        try await peer.write("250 ok, under TLS\r\n")
        peer.closeWrite()
        #expect(await client.output(containing: "250 ok, under TLS\r\n") == "250 ok, under TLS\r\n")
        await server.stop()
    }

    @Test func aRequiredClientCertificateIsVerifiedAndRecorded() async throws {
        let certificates = try await TestCertificates.get()
        let configuration = try certificates.serverRequiringClientCertificates()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: configuration)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let client = try OpenSSLClient.start(
            port: try #require(listener.port), "-CAfile", certificates.caPEM,
            "-cert", certificates.clientPEM, "-key", certificates.clientKey)
        client.send("from a known client\r\n")
        let peer = try #require(await accepted.next())
        #expect(try await peer.readLine() == "from a known client\r\n")
        #expect(peer.metrics.peerCertificateChain.first == (try TLSCertificate(pemFile: certificates.clientPEM)))
        peer.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func aClientWithoutTheRequiredCertificateIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        let configuration = try certificates.serverRequiringClientCertificates()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: configuration)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let client = try OpenSSLClient.start(port: try #require(listener.port), "-CAfile", certificates.caPEM)
        client.send("anonymous\r\n")
        let peer = try #require(await accepted.next())
        await expectStreamError(.tlsHandshakeFailed) { try await peer.readLine() }
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func aClientBelowTheServersMinimumVersionIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        var configuration = try certificates.serverConfiguration()
        configuration.minimumVersion = .tls1_3
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: configuration)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let client = try OpenSSLClient.start(port: try #require(listener.port), "-tls1_2")
        let peer = try #require(await accepted.next())
        let error = await expectStreamError(.tlsVersionTooOld) { try await peer.readLine() }
        #expect(error?.message.contains("TLS 1.3") == true)
        withExtendedLifetime(client) {}
        await listener.shutdown(gracePeriod: 0)
    }
}
