//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// The Darwin line client (Tests/DarwinPrograms/LineClient.swift), ported by the script, against
/// a Python line server (Tests/StreamTaskKitTests/Peers/line_server.py) that can start and stop
/// TLS within a connection.
@Suite(.timeLimit(.minutes(2))) struct PortedLineClientTests {
    static let lineServer = PortedDarwinProgramTests.root
        .appendingPathComponent("Tests/StreamTaskKitTests/Peers/line_server.py").path

    /// The line server on 127.0.0.1, with STARTTLS when given a certificate; its port.
    static func startServer(_ ca: MailTestCA?) async throws -> (ObservedProcess, Int) {
        let server = try ObservedProcess(
            "/usr/bin/env",
            ["python3", "-u", lineServer, "127.0.0.1", "0"] + (ca.map { [$0.serverPEM, $0.serverKey] } ?? []))
        #expect(await server.waitForOutput(containing: "\n"), "\(server.output)")
        let line = try #require(server.output.split(separator: "\n").first { $0.hasPrefix("ready ") })
        return (server, try #require(Int(line.dropFirst("ready ".count))))
    }

    /// STARTTLS, a command under TLS, STOPTLS and a command in plaintext again, on one
    /// connection: `startSecureConnection()`, `stopSecureConnection()`, the session-level
    /// challenge answered with `.performDefaultHandling` (the test CA trusted through
    /// `SSL_CERT_FILE`), `closeRead()` and `closeWrite()` at the end, and the metrics.
    @Test func theLineClientProtectsPartOfItsConversationThenDropsTLS() async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let (server, port) = try await Self.startServer(ca)
        defer { Task { await server.stop() } }
        let client = try ObservedProcess(
            try BuiltProducts.path("ported-line-client"), ["127.0.0.1", "\(port)", "--tls"],
            environment: ["SSL_CERT_FILE": ca.caPEM])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let output = client.output
        #expect(client.child.exitCode == 0, "\(output)\nserver: \(server.output)")
        for line in [
            "connection 1: HELLO from connection 1 -> HELLO from connection 1\n",
            "connection 1: STARTTLS -> OK starttls\n",
            "session challenge for 127.0.0.1:\(port), failures 0\n",
            "connection 1: STATUS -> STATUS tls\n",
            "connection 1: STOPTLS -> OK stoptls\n",
            "connection 1: STATUS -> STATUS plain\n",
            "connection 1: from 127.0.0.1 to 127.0.0.1:\(port), local port ",
            ", proxy false, reused false\n",
            "connection 1: TLS 1.3, redirects 0, ",
            "connection 1: fetch, lookup, connect and end in order: true\n",
            "connection 1: handshake took a while\n",
            "connection 1 completed\n",
            "session invalidated\n",
        ] {
            #expect(output.contains(line), "\(line) missing from: \(output)")
        }
        // The plaintext STATUS came after TLS had ended on both sides.
        let stopped = try #require(output.range(of: "STOPTLS -> OK stoptls"))
        let plain = try #require(output.range(of: "STATUS -> STATUS plain"))
        #expect(stopped.upperBound <= plain.lowerBound)
        #expect(await server.waitForOutput(containing: "client closed"), "\(server.output)")
        for line in ["tls started: TLSv1.3", "tls stopped", "client closed"] {
            #expect(server.output.contains(line), "\(line) missing from the server's output: \(server.output)")
        }
        await client.stop()
    }

    /// Without the test CA, the default handling refuses the server: `URLError`'s
    /// `.serverCertificateUntrusted`, in NSURLErrorDomain, and nothing sent under TLS.
    @Test func withoutTheCATheDefaultHandlingRefusesTheServer() async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let (server, port) = try await Self.startServer(ca)
        defer { Task { await server.stop() } }
        let client = try ObservedProcess(
            try BuiltProducts.path("ported-line-client"), ["127.0.0.1", "\(port)", "--tls"],
            environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let output = client.output
        #expect(client.child.exitCode == 2, "\(output)")
        #expect(
            output.contains("connection 1: the server's certificate is not trusted: NSURLErrorDomain -1202"),
            "\(output)")
        #expect(!output.contains("STATUS tls"), "\(output)")
        #expect(output.contains("session invalidated"), "\(output)")
        await client.stop()
    }

    /// Told to trust the server, the client answers the server trust challenge as Darwin code
    /// does, under Apple's names (`NSURLAuthenticationMethodServerTrust`,
    /// `protectionSpace.serverTrust`, `URLCredential(trust:)`, `.useCredential`). With its
    /// Info.plist allowing local networking, the conversation goes on under TLS with the CA
    /// nowhere; without it, App Transport Security refuses to let a delegate loosen trust, as on
    /// Darwin.
    @Test(arguments: [true, false])
    func toldToTrustTheServerTheClientAcceptsItWithApplesSpelling(withInfoPlist: Bool) async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let (server, port) = try await Self.startServer(ca)
        defer { Task { await server.stop() } }
        let executable =
            withInfoPlist
            ? try PortedDarwinProgramTests.withInfoPlist("LineClient-Info.plist", executable: "ported-line-client").path
            : try BuiltProducts.path("ported-line-client")
        let client = try ObservedProcess(
            executable, ["127.0.0.1", "\(port)", "--tls", "--trust-server"],
            environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let output = client.output
        #expect(output.contains("trusting the server's certificate as presented\n"), "\(output)")
        if withInfoPlist {
            #expect(client.child.exitCode == 0, "\(output)")
            for line in [
                "connection 1: STATUS -> STATUS tls\n", "connection 1: STATUS -> STATUS plain\n",
                "connection 1 completed\n",
            ] {
                #expect(output.contains(line), "\(line) missing from: \(output)")
            }
        } else {
            #expect(client.child.exitCode == 2, "\(output)")
            #expect(
                output.contains("connection 1: the server's certificate is not trusted: NSURLErrorDomain -1202"),
                "\(output)")
            #expect(!output.contains("STATUS tls"), "\(output)")
        }
        await client.stop()
    }

    /// What Apple makes synchronous or final holds at once, 50 rounds over: right after
    /// `cancel()` returns, `state` is no longer `.running`; after `startSecureConnection()` to
    /// a server the system does not trust, every write fails, the first and all after it.
    @Test func theCheckedClientFindsCancelAndAFailedHandshakeFinal() async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let (server, port) = try await Self.startServer(ca)
        defer { Task { await server.stop() } }
        let client = try ObservedProcess(
            try BuiltProducts.path("ported-checked-line-client"), ["127.0.0.1", "\(port)", "50"],
            environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(await client.waitForExit(seconds: 90), "\(client.output)")
        let output = client.output
        #expect(client.child.exitCode == 0, "\(output)")
        for line in [
            "state still running right after cancel() in 0 of 50 rounds\n",
            "writes under an untrusted handshake succeeded in 0 of 50 rounds (0 writes)\n",
        ] {
            #expect(output.contains(line), "\(line) missing from: \(output)")
        }
        await client.stop()
    }
}

/// The line client told to move to a better route: the server in a network namespace
/// reachable over two links (see ``RouteLab``), the client connected over the worse one; when
/// the test adds the better route, `urlSession(_:betterRouteDiscoveredFor:)` tells the client,
/// which closes that connection and opens another, which takes the better route.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled("needs root and `ip netns` (iproute2); CI=true makes it mandatory") { await RouteLab.isAvailable() }
)
struct PortedLineClientRouteTests {
    @Test func theLineClientMovesToABetterRoute() async throws {
        let script = PortedLineClientTests.lineServer
        let lab = try await RouteLab.create(
            server: { address, port in ["python3", "-u", script, address, "\(port)"] }, readyMarker: "ready")
        do {
            let client = try ObservedProcess(
                try BuiltProducts.path("ported-line-client"),
                [lab.serverAddress, "\(RouteLab.port)", "--move-to-better-route"])
            #expect(await client.waitForOutput(containing: "waiting for a better route"), "\(client.output)")
            try await lab.addBetterRoute()
            #expect(await client.waitForExit(seconds: 60), "\(client.output)")
            let output = client.output
            #expect(client.child.exitCode == 0, "\(output)")
            for line in [
                "connection 1: STATUS -> STATUS plain\n",
                "a better route appeared for connection 1\n",
                "moving to the better route\n",
                "connection 2: HELLO from connection 2 -> HELLO from connection 2\n",
                "connection 2: STATUS -> STATUS plain\n",
                // The first connection went over link b, the second over link a, the better one.
                "connection 1: from \(lab.clientB) to \(lab.serverAddress):\(RouteLab.port),",
                "connection 2: from \(lab.clientA) to \(lab.serverAddress):\(RouteLab.port),",
                "connection 1 completed\n",
                "connection 2 completed\n",
                "session invalidated\n",
            ] {
                #expect(output.contains(line), "\(line) missing from: \(output)")
            }
            await client.stop()
            await lab.remove()
        } catch {
            await lab.remove()
            throw error
        }
    }
}
