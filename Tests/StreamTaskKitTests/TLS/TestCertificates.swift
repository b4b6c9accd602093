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

/// Certificates made at run time with the `openssl` command-line tool, once per test process:
/// a CA, a server certificate for localhost/127.0.0.1/::1, an expired one, one for another name,
/// a self-signed one, a client certificate, and two that App Transport Security refuses.
struct TestCertificates: Sendable {
    let directory: String

    var caPEM: String { path("ca.pem") }
    var serverPEM: String { path("server.pem") }
    var serverKey: String { path("server.key") }
    var expiredPEM: String { path("expired.pem") }
    var otherNamePEM: String { path("other.pem") }
    var selfSignedPEM: String { path("selfsigned.pem") }
    var selfSignedKey: String { path("selfsigned.key") }
    var clientPEM: String { path("client.pem") }
    var clientKey: String { path("client.key") }
    /// Issued by the test CA for localhost/127.0.0.1/::1 with an RSA key of 1024 bits.
    var weakKeyPEM: String { path("weak.pem") }
    var weakKey: String { path("weak.key") }
    /// The server certificate's key, issued again by the test CA with a SHA-1 signature.
    var sha1SignedPEM: String { path("sha1.pem") }

    func path(_ name: String) -> String { directory + "/" + name }

    /// The set for this test process, made once, off the cooperative thread pool (making it runs
    /// `openssl` several times).
    private static let shared = Task {
        try await offCooperativePool { Result { try make() } }.get()
    }

    static func get() async throws -> TestCertificates { try await shared.value }

    var ca: TLSCertificate { get throws { try TLSCertificate(pemFile: caPEM) } }

    /// A client configuration that trusts only the test CA.
    func clientConfiguration(
        _ change: (inout StreamTLSConfiguration) -> Void = { _ in }
    ) throws -> StreamTLSConfiguration {
        var configuration = StreamTLSConfiguration(trustsSystemRoots: false, additionalTrustRoots: [try ca])
        change(&configuration)
        return configuration
    }

    /// A server configuration that requires a client certificate issued by the test CA.
    func serverRequiringClientCertificates() throws -> StreamTLSConfiguration {
        .server(
            certificateChain: try TLSCertificate.chain(pemFile: serverPEM),
            privateKey: try TLSPrivateKey(pemFile: serverKey),
            requiresClientCertificate: true,
            clientCertificateRoots: [try ca]
        )
    }

    /// A server configuration presenting `certificate` (the good server certificate by default).
    func serverConfiguration(certificate: String? = nil, key: String? = nil) throws -> StreamTLSConfiguration {
        try .server(certificatePEMFile: certificate ?? serverPEM, privateKeyPEMFile: key ?? serverKey)
    }

    private static func make() throws -> TestCertificates {
        let directory = NSTemporaryDirectory() + "streamtaskkit-certs-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try certificates.write(
            "ca.cnf",
            """
            [ ca ]
            default_ca = test_ca
            [ test_ca ]
            dir = \(directory)
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            serial = \(directory)/serial
            default_md = sha256
            policy = anything
            copy_extensions = copy
            unique_subject = no
            [ anything ]
            commonName = supplied
            """)
        try certificates.write("index.txt", "")
        try certificates.write("serial", "1000\n")
        try certificates.write("server.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n")
        try certificates.write("other.ext", "subjectAltName=DNS:other.example\n")
        try certificates.write("client.ext", "extendedKeyUsage=clientAuth\n")

        try openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "30", "-subj", "/CN=StreamTaskKit Test CA", in: directory)
        // A key and a signing request for it, and a certificate the test CA issues for 10 days.
        func request(_ name: String, bits: Int = 2048, subject: String) throws {
            try openssl(
                "req", "-newkey", "rsa:\(bits)", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                "-subj", subject, in: directory)
        }
        func issue(_ request: String, as name: String, extensions: String, _ extra: String...) throws {
            try openssl(
                ["x509", "-req", "-in", "\(request).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"]
                    + ["-out", "\(name).pem", "-days", "10", "-extfile", extensions] + extra,
                in: directory)
        }
        try request("server", subject: "/CN=localhost")
        try issue("server", as: "server", extensions: "server.ext")
        // Valid for one day, two years ago.
        try openssl(
            "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "server.csr",
            "-out", "expired.pem", "-startdate", "20200101000000Z", "-enddate", "20200102000000Z",
            "-extfile", "server.ext", "-notext", in: directory)
        try issue("server", as: "other", extensions: "other.ext")
        try openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "selfsigned.key", "-out", "selfsigned.pem",
            "-days", "10", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            in: directory)
        try request("client", subject: "/CN=test client")
        try issue("client", as: "client", extensions: "client.ext")
        // What App Transport Security refuses: a small key, a SHA-1 signature.
        try request("weak", bits: 1024, subject: "/CN=localhost")
        try issue("weak", as: "weak", extensions: "server.ext")
        try issue("server", as: "sha1", extensions: "server.ext", "-sha1")
        return certificates
    }

    private func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    private static func openssl(_ arguments: String..., in directory: String) throws {
        try openssl(arguments, in: directory)
    }

    /// Runs the `openssl` command-line tool in `directory`; its error output is the error's message.
    static func openssl(_ arguments: [String], in directory: String) throws {
        let (status, output) = try ChildProcess.runToEnd("/usr/bin/openssl", arguments, in: directory)
        guard status == 0 else {
            throw StreamTaskError(
                .tlsConfigurationInvalid, "openssl \(arguments.joined(separator: " ")) failed: \(output)")
        }
    }
}

/// `openssl s_server` on 127.0.0.1, serving one connection; `-rev` sends each line back reversed.
final class OpenSSLServer: Sendable {
    // Its standard input is kept open for the server's lifetime: s_server reads it.
    private let child: ChildProcess
    let port: Int

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// Starts `openssl s_server -rev` with `arguments` added, and waits for its port.
    static func start(certificate: String, key: String, _ arguments: String...) async throws -> OpenSSLServer {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("s_server-\(UUID().uuidString)").path
        let child = try ChildProcess(
            "/usr/bin/env",
            [
                "openssl", "s_server", "-accept", "127.0.0.1:0", "-naccept", "1", "-rev",
                "-cert", certificate, "-key", key,
            ] + arguments,
            output: output, errors: "/dev/null", pipeInput: true)
        let lines = ChildOutputLines(child)
        let port: Int? = await offCooperativePool {
            while let text = lines.next() {
                if text.hasPrefix("ACCEPT "), let colon = text.lastIndex(of: ":") {
                    return Int(text[text.index(after: colon)...])
                }
            }
            return nil
        }
        guard let port else {
            child.stop(grace: 0)
            try? FileManager.default.removeItem(atPath: output)
            throw StreamTaskError(.connectionFailed, "openssl s_server did not report its port")
        }
        return OpenSSLServer(child: child, port: port)
    }

    deinit {
        // SIGKILL at once: s_server ignores SIGTERM.
        child.stop(grace: 0)
        try? FileManager.default.removeItem(atPath: child.outputPath)
    }
}

extension LoopbackServer {
    /// A listener, a client task connected to it and the task it accepted, both upgraded to TLS
    /// and past a first line. The client waits `clientCloseNotifyTimeout` seconds for a
    /// close_notify, the peer ten minutes: a close that wrongly waits for one hangs instead of
    /// ending after SwiftNIO SSL's usual 5 s.
    static func upgradedPair(
        clientCloseNotifyTimeout: Double
    ) async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        let certificates = try await TestCertificates.get()
        var clientTLS = try certificates.clientConfiguration()
        clientTLS.closeNotifyTimeout = clientCloseNotifyTimeout
        var serverTLS = try certificates.serverConfiguration()
        serverTLS.closeNotifyTimeout = 600
        let (server, client, peer) = try await connectedPair(configuration: .init(tls: clientTLS))
        try await client.startTLS(with: peer, serverConfiguration: serverTLS)
        try await client.write("hello\r\n")
        #expect(try await peer.readLine() == "hello\r\n")
        return (server, client, peer)
    }
}
