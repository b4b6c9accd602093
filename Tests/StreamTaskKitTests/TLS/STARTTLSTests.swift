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

/// STARTTLS in conversations: injected plaintext in both roles, stopping TLS, and our client
/// against a real mail server that offers STARTTLS.
@Suite(.timeLimit(.minutes(1))) struct STARTTLSTests {
    @Test func aClientRefusesPlaintextSentAfterTheGoAhead() async throws {
        let certificates = try await TestCertificates.get()
        let (server, client, peer) = try await LoopbackServer.connectedPair(
            configuration: .init(tls: try certificates.clientConfiguration())
        )
        // A man in the middle appends a command to the server's go-ahead, in the same packet.
        try await peer.write("220 go ahead\r\n250 injected reply\r\n")
        #expect(try await client.readLine() == "220 go ahead\r\n")
        let error = await expectStreamError(.tlsPlaintextInjection) { try await client.startTLS(timeout: 10) }
        #expect(error?.message.contains("20 bytes") == true)
        // The injected bytes are never handed out, and the connection is gone.
        await expectStreamError(.tlsPlaintextInjection) {
            try await client.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        }
        #expect(await client.waitUntilCompleted()?.code == .tlsPlaintextInjection)
        await server.stop()
    }

    @Test func aServerRefusesPlaintextPipelinedAfterSTARTTLS() async throws {
        let certificates = try await TestCertificates.get()
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        // The client (or someone in the middle) pipelines a command behind STARTTLS.
        try await client.write("STARTTLS\r\nRCPT TO:<victim@example.com>\r\n")
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        try await peer.write("220 go ahead\r\n")
        await expectStreamError(.tlsPlaintextInjection) {
            try await peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
        }
        await expectStreamError(.tlsPlaintextInjection) {
            try await peer.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        }
        #expect(try await client.readToEnd() == "220 go ahead\r\n")
        await server.stop()
    }

    @Test func aPythonClientThatInjectsIsRefusedByOurServer() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        // A client no one here wrote, from Python's standard library.
        let script = """
            import socket
            s = socket.create_connection(("127.0.0.1", \(server.port)))
            s.sendall(b"STARTTLS\\r\\nMAIL FROM:<forged@example.com>\\r\\n")
            print(s.recv(100).decode().strip())
            """
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let python = try ChildProcess("/usr/bin/env", ["python3", "-c", script], output: output, errors: "/dev/null")
        let peer = try await server.accept(&accepted)
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        try await peer.write("220 go ahead\r\n")
        await expectStreamError(.tlsPlaintextInjection) {
            try await peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
        }
        let printed = await offCooperativePool {
            let deadline = Date().addingTimeInterval(30)
            while python.isRunning() && Date() < deadline { usleep(5_000) }
            return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        #expect(printed == "220 go ahead\n")
        await server.stop()
    }

    @Test func bothSidesUpgradeThenStopTLSAndGoOnInPlaintext() async throws {
        let certificates = try await TestCertificates.get()
        let (server, client, peer) = try await LoopbackServer.connectedPair(
            configuration: .init(tls: try certificates.clientConfiguration())
        )
        try await client.write("STARTTLS\r\n")
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        try await peer.write("220 go ahead\r\n")
        #expect(try await client.readLine() == "220 go ahead\r\n")
        try await client.startTLS(with: peer, serverConfiguration: try certificates.serverConfiguration())

        try await client.write("secret\r\n")
        #expect(try await peer.readLine() == "secret\r\n")
        #expect(client.metrics.negotiatedTLSVersion == "TLS 1.3")
        #expect(peer.metrics.negotiatedTLSVersion == "TLS 1.3")

        // Both send close_notify, both wait for the other's, both go back to plaintext.
        try await client.stopTLS(with: peer)
        try await client.write("plain again\r\n")
        #expect(try await peer.readLine() == "plain again\r\n")
        try await peer.write("and back\r\n")
        #expect(try await client.readLine() == "and back\r\n")
        client.cancel()
        await server.stop()
    }

    @Test func theEndOfAProtectedStreamReadsAsEndOfStream() async throws {
        let certificates = try await TestCertificates.get()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: try certificates.serverConfiguration())
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let session = StreamSession(configuration: .init(tls: try certificates.clientConfiguration()))
        let client = session.loopbackTask(port: try #require(listener.port))
        client.startSecureConnection()
        try await client.write("hi\r\n")
        let peer = try #require(await accepted.next())
        #expect(try await peer.readLine() == "hi\r\n")
        // close_notify, then the TCP end of stream: the client reads the rest, then EOF.
        try await peer.write("bye\r\n")
        peer.closeWrite()
        #expect(try await client.readToEnd() == "bye\r\n")
        client.closeWrite()
        #expect(try await peer.readToEnd() == "")
        #expect(await client.waitUntilCompleted() == nil)
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func stopTLSOnAPlaintextTaskFailsAndKeepsTheConnection() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let error = await expectStreamError(.tlsNotActive) { try await client.stopTLS(timeout: 10) }
        #expect(error?.message.contains("not using TLS") == true)
        try await client.write("still fine\r\n")
        #expect(try await peer.readLine() == "still fine\r\n")
        client.cancel()
        await server.stop()
    }

    @Test func ourClientUpgradesWithARealMailServer() async throws {
        let certificates = try await TestCertificates.get()
        let smtp = try await MailServer.start(certificate: certificates.serverPEM, key: certificates.serverKey)
        let session = StreamSession(configuration: .init(tls: try certificates.clientConfiguration()))
        let client = session.streamTask(withHostName: "localhost", port: smtp.port)
        client.resume()

        #expect(try await client.readLine().hasPrefix("220 "))
        try await client.write("EHLO client.invalid\r\n")
        var capabilities: [String] = []
        while true {
            let line = try await client.readLine()
            capabilities.append(line)
            if line.hasPrefix("250 ") { break }
        }
        #expect(capabilities.contains { $0.contains("STARTTLS") })
        try await client.write("STARTTLS\r\n")
        #expect(try await client.readLine().hasPrefix("220"))
        try await client.startTLS(timeout: 10)
        #expect(client.metrics.negotiatedTLSVersion != nil)

        try await client.write("EHLO client.invalid\r\n")
        var afterUpgrade: [String] = []
        while true {
            let line = try await client.readLine()
            afterUpgrade.append(line)
            if line.hasPrefix("250 ") { break }
        }
        // Once under TLS, the server no longer offers STARTTLS.
        #expect(!afterUpgrade.contains { $0.contains("STARTTLS") })
        try await client.write("QUIT\r\n")
        #expect(try await client.readLine().hasPrefix("221"))
        client.cancel()
    }
}

/// aiosmtpd (Debian's python3-aiosmtpd), an SMTP server that offers STARTTLS, on a free port of 127.0.0.1.
final class MailServer: Sendable {
    private let child: ChildProcess
    let port: Int

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    static func start(certificate: String, key: String) async throws -> MailServer {
        let port = try freePort()
        // Debian's interpreter, which sees Debian's python3-aiosmtpd package.
        let child = try ChildProcess(
            "/usr/bin/python3",
            ["-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "--tlscert", certificate, "--tlskey", key],
            output: "/dev/null")
        let server = MailServer(child: child, port: port)
        // Wait (bounded) until it accepts connections.
        let probe = StreamSession(configuration: .init(timeoutIntervalForRequest: 1))
        for _ in 0..<100 {
            guard child.isRunning() else { break }
            let task = probe.loopbackTask(port: port)
            if (try? await task.readData(ofMinLength: 1, maxLength: 512, timeout: 2)) != nil {
                task.cancel()
                return server
            }
            task.cancel()
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StreamTaskError(
            .connectionFailed,
            "aiosmtpd did not start; is Debian's python3-aiosmtpd installed? (scripts/install-deps.sh installs it)"
        )
    }

    /// A port that was free a moment ago (aiosmtpd takes a port number, not 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw StreamTaskError(.bindFailed, "could not find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        child.stop(grace: 0)
    }
}
