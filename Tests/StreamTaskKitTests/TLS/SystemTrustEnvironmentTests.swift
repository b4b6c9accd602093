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
import X509

@testable import StreamTaskCore

/// The system's trust roots honour `SSL_CERT_FILE` and `SSL_CERT_DIR` as OpenSSL programs do,
/// against `openssl s_server` presenting a certificate of the test CA. The variables are given
/// through the configuration's environment seam; the ported SMTP program's test sets the real
/// ones in a child process.
@Suite(.timeLimit(.minutes(1))) struct SystemTrustEnvironmentTests {
    /// Connects to `localhost` with the default configuration (system roots, full checks) seeing
    /// `environment`, and returns why the handshake failed, or `nil` when it succeeded.
    private func handshake(environment: [String: String]) async throws -> StreamTaskError? {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(certificate: certificates.serverPEM, key: certificates.serverKey)
        var tls = StreamTLSConfiguration()
        tls.systemTrustEnvironment = environment
        let task = StreamSession(configuration: .init(tls: tls)).streamTask(
            withHostName: "localhost", port: server.port)
        task.resume()
        defer { task.cancel() }
        do {
            try await task.startTLS(timeout: 10)
            try await task.write("trusted\n")
            #expect(
                try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                    == Data("detsurt\n".utf8))
            return nil
        } catch let error as StreamTaskError {
            return error
        }
    }

    @Test func aPrivateCAIsNotASystemRoot() async throws {
        let error = try await handshake(environment: [:])
        #expect(error?.code == .tlsUntrustedCertificate)
    }

    @Test func sslCertFileReplacesTheSystemBundle() async throws {
        let certificates = try await TestCertificates.get()
        #expect(try await handshake(environment: ["SSL_CERT_FILE": certificates.caPEM]) == nil)
    }

    @Test func sslCertDirAddsEachListedDirectory() async throws {
        let certificates = try await TestCertificates.get()
        let directory = NSTemporaryDirectory() + "streamtaskkit-certdir-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A hashed name linking to the file, as c_rehash makes them, and a file that is no certificate.
        try FileManager.default.copyItem(atPath: certificates.caPEM, toPath: directory + "/test-ca.pem")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/0a1b2c3d.0", withDestinationPath: "test-ca.pem")
        try "not a certificate\n".write(toFile: directory + "/README", atomically: true, encoding: .utf8)
        let listed = "/nonexistent-\(UUID().uuidString):" + directory
        #expect(try await handshake(environment: ["SSL_CERT_DIR": listed]) == nil)
    }

    @Test func anUnreadableSSLCertFileIsNamedInTheRefusal() async throws {
        let missing = "/nonexistent-\(UUID().uuidString).pem"
        let error = try await handshake(environment: ["SSL_CERT_FILE": missing])
        #expect(error?.code == .tlsUntrustedCertificate)
        #expect(error?.message.contains("SSL_CERT_FILE \(missing)") == true, "\(String(describing: error))")
    }

    @Test func sslCertFileIsReadInsteadOfTheSystemBundle() async throws {
        let certificates = try await TestCertificates.get()
        let testCA = try SystemTrustRoots.certificates(inFile: certificates.caPEM)
        #expect(testCA.count == 1)
        // With the variable, the test CA alone: the distribution's bundle is left out, as OpenSSL does.
        let replaced = SystemTrustRoots.roots(environment: ["SSL_CERT_FILE": certificates.caPEM])
        #expect(replaced.store == CertificateStore(testCA))
        #expect(replaced.problems.isEmpty)
        // Without it (or with it empty), the distribution's bundle.
        #expect(SystemTrustRoots.roots(environment: [:]).store == CertificateStore.systemTrustRoots)
        #expect(SystemTrustRoots.roots(environment: ["SSL_CERT_FILE": ""]).store == CertificateStore.systemTrustRoots)
    }
}
