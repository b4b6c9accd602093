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

/// STARTTLS through each kind of proxy: the tunnel carries the upgrade like a direct connection.
@Suite(.serialized, .timeLimit(.minutes(1))) struct STARTTLSThroughProxyTests {
    /// A server-speaks-first conversation that upgrades both ends, through `proxy`.
    private func upgradeThrough(_ proxy: ProxyConfiguration, expecting kind: ProxyKind) async throws {
        let certificates = try await TestCertificates.get()
        let server = try await LoopbackServer.start(session: StreamSession(configuration: .init(proxy: .direct)))
        var accepted = server.listener.connections.makeAsyncIterator()
        let session = StreamSession(configuration: .init(tls: try certificates.clientConfiguration(), proxy: proxy))
        let client = session.loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)

        try await peer.write("220 ready\r\n")
        #expect(try await client.readLine() == "220 ready\r\n")
        try await client.write("STARTTLS\r\n")
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        try await peer.write("220 go ahead\r\n")
        #expect(try await client.readLine() == "220 go ahead\r\n")
        try await client.startTLS(with: peer, serverConfiguration: try certificates.serverConfiguration())

        try await client.write("through the tunnel\r\n")
        #expect(try await peer.readLine() == "through the tunnel\r\n")
        try await peer.write("under TLS\r\n")
        #expect(try await client.readLine() == "under TLS\r\n")
        let metrics = client.metrics
        #expect(metrics.proxyKind == kind)
        #expect(metrics.negotiatedTLSVersion == "TLS 1.3")
        #expect(metrics.peerCertificateChain.first == (try TLSCertificate(pemFile: certificates.serverPEM)))
        client.cancel()
        await server.stop()
    }

    @Test func startTLSThroughTinyproxy() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { proxy in
            try await upgradeThrough(.httpConnect(host: "127.0.0.1", port: proxy.port), expecting: .httpConnect)
        }
    }

    @Test func startTLSThroughDante() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante() }) { proxy in
            try await upgradeThrough(.socks5(host: "127.0.0.1", port: proxy.port), expecting: .socks5)
        }
    }
}
