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

/// An HTTPS proxy: stunnel (Debian's stunnel4) speaking TLS in front of tinyproxy.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HTTPSProxyTests {
    @Test func httpsURLsSpeakTLSToTheProxyOnPort443ByDefault() throws {
        let endpoint = try ProxyURL.parse("https://me:secret@proxy.example", source: "https_proxy")
        #expect(endpoint.kind == .httpConnect)
        #expect(endpoint.port == 443)
        #expect(endpoint.tls == StreamTLSConfiguration())
        #expect(endpoint.description.contains("HTTPS proxy"))
        #expect(try ProxyURL.parse("http://proxy.example", source: nil).tls == nil)
    }

    @Test func aTaskThroughAnHTTPSProxyUpgradesWithTheTargetToo() async throws {
        let certificates = try await TestCertificates.get()
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { tinyproxy in
            let stunnel = try await Stunnel.start(
                certificate: certificates.serverPEM, key: certificates.serverKey,
                forwardingTo: tinyproxy.port)
            let server = try await LoopbackServer.start(session: StreamSession(configuration: .init(proxy: .direct)))
            var accepted = server.listener.connections.makeAsyncIterator()
            let tls = try certificates.clientConfiguration()
            let proxy = ProxyConfiguration.httpConnect(host: "localhost", port: stunnel.port, tls: tls)
            let client = StreamSession(configuration: .init(tls: tls, proxy: proxy)).loopbackTask(port: server.port)
            let peer = try await server.accept(&accepted)

            // Server speaks first; the greeting crosses the proxy's TLS and tinyproxy's tunnel.
            try await peer.write("220 ready\r\n")
            #expect(try await client.readLine() == "220 ready\r\n")
            // Then TLS with the target inside TLS with the proxy.
            try await client.startTLS(with: peer, serverConfiguration: try certificates.serverConfiguration())
            try await client.write("inside two layers\r\n")
            #expect(try await peer.readLine() == "inside two layers\r\n")
            // Stopping TLS with the target leaves the proxy's TLS in place.
            try await client.stopTLS(with: peer)
            try await peer.write("one layer again\r\n")
            #expect(try await client.readLine() == "one layer again\r\n")
            #expect(client.metrics.proxyKind == .httpConnect)
            client.cancel()
            await server.stop()
            await stunnel.stop()
        }
    }

    @Test func anHTTPSProxyWithAnUntrustedCertificateIsRefused() async throws {
        let certificates = try await TestCertificates.get()
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { tinyproxy in
            let stunnel = try await Stunnel.start(
                certificate: certificates.selfSignedPEM, key: certificates.selfSignedKey,
                forwardingTo: tinyproxy.port)
            let proxy = ProxyConfiguration.httpConnect(
                host: "localhost", port: stunnel.port, tls: try certificates.clientConfiguration())
            let client = StreamSession(configuration: .init(proxy: proxy)).loopbackTask(port: 9)
            let error = await expectStreamError(.tlsUntrustedCertificate) { try await client.write("x") }
            #expect(error?.message.contains("HTTPS proxy localhost:\(stunnel.port)") == true)
            await stunnel.stop()
        }
    }
}

extension HTTPSProxyTests {
    /// TLS to the proxy is a connection of the session like any other: App Transport Security's
    /// rules apply to the proxy's host (here an address), and the refusal names the proxy.
    @Test func anHTTPSProxyWithoutForwardSecrecyIsRefusedByTransportSecurity() async throws {
        let certificates = try await TestCertificates.get()
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { tinyproxy in
            let stunnel = try await Stunnel.start(
                certificate: certificates.serverPEM, key: certificates.serverKey, forwardingTo: tinyproxy.port,
                extra: ["sslVersionMax = TLSv1.2", "ciphers = AES128-GCM-SHA256"])
            let proxy = ProxyConfiguration.httpConnect(
                host: "127.0.0.1", port: stunnel.port, tls: try certificates.clientConfiguration())
            let refused = StreamSession(configuration: .init(proxy: proxy)).loopbackTask(port: 9)
            let error = await expectStreamError(.transportSecurityCipherSuite) { try await refused.write("x") }
            #expect(
                error?.message.contains("HTTPS proxy 127.0.0.1:\(stunnel.port)") == true, "\(String(describing: error))"
            )
            #expect(error?.message.contains("NSExceptionRequiresForwardSecrecy") == true)
            // The exception for the proxy's address lets the same proxy through.
            let configuration = StreamSessionConfiguration(proxy: proxy)
            configuration.transportSecurity = StreamTransportSecurity(exceptionDomains: [
                "127.0.0.1": .init(requiresForwardSecrecy: false)
            ])
            let server = try await LoopbackServer.start(session: StreamSession(configuration: .init(proxy: .direct)))
            var accepted = server.listener.connections.makeAsyncIterator()
            let client = StreamSession(configuration: configuration).loopbackTask(port: server.port)
            let peer = try await server.accept(&accepted)
            try await peer.write("through\r\n")
            #expect(try await client.readLine() == "through\r\n")
            #expect(client.metrics.proxyKind == .httpConnect)
            client.cancel()
            await server.stop()
            await stunnel.stop()
        }
    }
}

/// stunnel in server mode: TLS on a free port of 127.0.0.1, forwarding plaintext to `port`.
final class Stunnel: Sendable {
    let port: Int
    private let child: ChildProcess

    private init(port: Int, child: ChildProcess) {
        self.port = port
        self.child = child
    }

    /// `extra` lines go into the service's section (`ciphers = …`, `sslVersionMax = …`).
    static func start(
        certificate: String, key: String, forwardingTo target: Int, extra: [String] = []
    ) async throws -> Stunnel {
        let binary = ["/usr/bin/stunnel4", "/usr/bin/stunnel"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw ProxySetupError(
                description: "stunnel is not installed: run scripts/install-deps.sh (or apt-get install stunnel4)")
        }
        let directory = NSTemporaryDirectory() + "stunnel-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let socket = try ClosedPort()
        let port = socket.port
        socket.release()
        let config = """
            foreground = yes
            pid =
            output = \(directory)/stunnel.log
            [https-proxy]
            accept = 127.0.0.1:\(port)
            connect = 127.0.0.1:\(target)
            cert = \(certificate)
            key = \(key)
            \(extra.joined(separator: "\n"))
            """
        try config.write(toFile: directory + "/stunnel.conf", atomically: true, encoding: .utf8)
        let child = try ChildProcess(binary, [directory + "/stunnel.conf"], output: directory + "/stdout.log")
        let stunnel = Stunnel(port: port, child: child)
        // Wait (bounded) until it accepts connections.
        let probe = StreamSession(configuration: .init(timeoutIntervalForRequest: 1, proxy: .direct))
        for _ in 0..<200 {
            let task = probe.loopbackTask(port: port)
            task.closeWrite()
            if await task.waitUntilCompleted()?.code != .connectionRefused {
                return stunnel
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        await stunnel.stop()
        throw ProxySetupError(
            description: "stunnel did not start listening on 127.0.0.1:\(port); see \(directory)/stunnel.log")
    }

    func stop() async {
        await offCooperativePool { self.child.stop() }
    }
}
