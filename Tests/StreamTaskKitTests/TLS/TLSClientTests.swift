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

/// Our client tasks against `openssl s_server`, with certificates made by `openssl`.
@Suite(.timeLimit(.minutes(1))) struct TLSClientTests {
    private func session(
        _ tls: StreamTLSConfiguration, transportSecurity: StreamTransportSecurity = .mainBundle
    ) -> StreamSession {
        let configuration = StreamSession.Configuration(tls: tls)
        configuration.transportSecurity = transportSecurity
        return StreamSession(configuration: configuration)
    }

    /// A task to `host` (default 127.0.0.1) on the server's port that starts TLS at once.
    private func connect(
        to server: OpenSSLServer, host: String = "127.0.0.1", tls: StreamTLSConfiguration,
        transportSecurity: StreamTransportSecurity = .mainBundle
    ) -> StreamTask {
        let task = session(tls, transportSecurity: transportSecurity).streamTask(withHostName: host, port: server.port)
        task.resume()
        return task
    }

    @Test func handshakeAgainstOpenSSLAndExchangeProtectedData() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.serverPEM, key: certificates.serverKey)
        let task = connect(to: server, host: "localhost", tls: try certificates.clientConfiguration())
        try await task.startTLS(timeout: 10)
        try await task.write("hello\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("olleh\n".utf8))

        let metrics = task.metrics
        #expect(metrics.negotiatedTLSVersion == "TLS 1.3")
        #expect(metrics.negotiatedCipherSuite?.hasPrefix("TLS_") == true)
        let start = try #require(metrics.secureConnectionStartDate)
        let end = try #require(metrics.secureConnectionEndDate)
        #expect(start <= end)
        #expect(try #require(metrics.connectEndDate) <= start)
        let leaf = try #require(metrics.peerCertificateChain.first)
        #expect(leaf == (try TLSCertificate(pemFile: certificates.serverPEM)))
        task.cancel()
    }

    @Test func tls12IsReportedWithItsCipherSuite() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey,
            "-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384")
        let task = connect(to: server, tls: try certificates.clientConfiguration())
        try await task.startTLS(timeout: 10)
        #expect(task.metrics.negotiatedTLSVersion == "TLS 1.2")
        #expect(task.metrics.negotiatedCipherSuite == "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")
        task.cancel()
    }

    /// A server that shares no cipher suite with us answers handshake_failure, as GnuTLS does
    /// for a version it does not accept: the error names this side's versions among the
    /// things the peer may have refused.
    @Test func aHandshakeFailureAlertIsDescribedWithThisSidesVersions() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey,
            "-tls1_2", "-cipher", "CAMELLIA128-SHA")
        // Where App Transport Security applies, it names its own rule instead (see
        // TransportSecurityTests); here it does not.
        let task = connect(
            to: server, tls: try certificates.clientConfiguration { $0.maximumVersion = .tls1_2 },
            transportSecurity: .localNetworking)
        let error = await expectStreamError(.tlsHandshakeFailed) { try await task.startTLS(timeout: 10) }
        #expect(error?.message.contains("peer refused the TLS handshake") == true, "\(String(describing: error))")
        #expect(
            error?.message.contains("TLS versions this side accepts (TLS 1.2 to TLS 1.2)") == true,
            "\(String(describing: error))")
    }

    @Test func anExpiredCertificateIsRefusedAsExpired() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.expiredPEM, key: certificates.serverKey)
        let task = connect(to: server, tls: try certificates.clientConfiguration())
        let error = await expectStreamError(.tlsCertificateExpired) { try await task.startTLS(timeout: 10) }
        #expect(error?.message.contains("expired") == true)
        #expect(await task.waitUntilCompleted()?.code == .tlsCertificateExpired)
    }

    @Test func anUntrustedCertificateIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey)
        let task = connect(to: server, tls: try certificates.clientConfiguration())
        // Operations queued behind the upgrade fail with the same reason.
        let write = Recorder<StreamTaskError.Code?>()
        task.startSecureConnection()
        task.write(Data("secret".utf8), timeout: 10) { error in
            // As Apple reports an untrusted server certificate; the detail names the reason.
            #expect((error as? URLError)?.code == .serverCertificateUntrusted)
            write.append(error?.streamTaskError?.code)
        }
        #expect(await task.waitUntilCompleted()?.code == .tlsUntrustedCertificate)
        #expect(await eventually { write.values == [.tlsUntrustedCertificate] })
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.otherNamePEM, key: certificates.serverKey)
        let task = connect(to: server, host: "localhost", tls: try certificates.clientConfiguration())
        let error = await expectStreamError(.tlsHostnameMismatch) { try await task.startTLS(timeout: 10) }
        #expect(error?.message.contains("other.example") == true)
        #expect(error?.message.contains("localhost") == true)
    }

    @Test func theSameCertificateIsAcceptedWithoutTheNameCheck() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.otherNamePEM, key: certificates.serverKey)
        let task = connect(
            to: server, host: "localhost",
            tls: try certificates.clientConfiguration {
                $0.certificateVerification = .noHostnameVerification
            })
        try await task.startTLS(timeout: 10)
        task.cancel()
    }

    @Test func aServerBelowTheMinimumVersionIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey, "-tls1_2")
        let task = connect(to: server, tls: try certificates.clientConfiguration { $0.minimumVersion = .tls1_3 })
        let error = await expectStreamError(.tlsVersionTooOld) { try await task.startTLS(timeout: 10) }
        #expect(error?.message.contains("TLS 1.3 or newer") == true)
    }

    @Test func pinsAreCheckedOnTopOfTheChain() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.serverPEM, key: certificates.serverKey)
        let wrongPin = TLSPin.certificateSHA256(
            try TLSCertificate(pemFile: certificates.selfSignedPEM).sha256Fingerprint)
        let task = connect(to: server, tls: try certificates.clientConfiguration { $0.pins = [wrongPin] })
        await expectStreamError(.tlsPinMismatch) { try await task.startTLS(timeout: 10) }
    }

    @Test(arguments: [false, true])
    func aPinAloneTrustsASelfSignedServer(byPublicKey: Bool) async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey)
        let certificate = try TLSCertificate(pemFile: certificates.selfSignedPEM)
        // The fingerprint as `openssl x509 -fingerprint -sha256` prints it.
        let printed = try await fingerprint(of: certificates.selfSignedPEM)
        let pin =
            byPublicKey
            ? TLSPin.publicKeySHA256(try certificate.publicKeySHA256)
            : try #require(TLSPin.certificateSHA256(hex: printed))
        // A pin instead of default evaluation loosens trust: App Transport Security asks for
        // an exception (TransportSecurityTests shows the refusal without it).
        let task = connect(
            to: server, tls: StreamTLSConfiguration(certificateVerification: .none, pins: [pin]),
            transportSecurity: .insecureLoopback)
        try await task.startTLS(timeout: 10)
        try await task.write("pinned\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("dennip\n".utf8))
        task.cancel()
    }

    @Test func aClientCertificateIsPresentedWhenRequired() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await serverRequiringClientCertificates(certificates)
        let task = connect(
            to: server,
            tls: try certificates.clientConfiguration {
                $0.certificateChain = [try! TLSCertificate(pemFile: certificates.clientPEM)]
                $0.privateKey = try! TLSPrivateKey(pemFile: certificates.clientKey)
            })
        try await task.startTLS(timeout: 10)
        try await task.write("with certificate\n")
        #expect(
            try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("etacifitrec htiw\n".utf8))
        task.cancel()
    }

    @Test func withoutTheRequiredClientCertificateTheServerRefuses() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await serverRequiringClientCertificates(certificates)
        let task = connect(to: server, tls: try certificates.clientConfiguration())
        // In TLS 1.3 the client finishes its side first and hears of the refusal on its next read.
        try? await task.startTLS(timeout: 10)
        await expectStreamError(.tlsHandshakeFailed) {
            try await task.write("no certificate\n")
            return try await task.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        }
    }

    /// `openssl s_server` refusing clients without a certificate from the test CA.
    private func serverRequiringClientCertificates(_ certificates: TestCertificates) async throws -> OpenSSLServer {
        try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey,
            "-Verify", "1", "-verifyCAfile", certificates.caPEM, "-verify_return_error")
    }

    /// The SHA-256 fingerprint as `openssl x509 -fingerprint -sha256` prints it.
    private func fingerprint(of pemFile: String) async throws -> String {
        let text = await offCooperativePool { () -> String in
            let run = try? ChildProcess.runToEnd(
                "/usr/bin/env", ["openssl", "x509", "-in", pemFile, "-noout", "-fingerprint", "-sha256"],
                in: FileManager.default.temporaryDirectory.path)
            return run?.output ?? ""
        }
        return String(try #require(text.split(separator: "=").last)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
