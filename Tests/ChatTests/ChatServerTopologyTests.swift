//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import StreamTaskKit
import StreamTaskTestSupport
import Testing

@testable import ChatServerCore

/// Other shapes of a network on loopback: chat-server as the hub of two ngIRCd leaves, and a
/// link made through the session's HTTP CONNECT proxy (tinyproxy).
@Suite(.timeLimit(.minutes(2))) struct ChatServerTopologyTests {
    static let password = "topology-secret"

    @Test func chatServerIsTheHubOfTwoNgircdLeaves() async throws {
        let hub = try await LinkedChatServer.start(
            "hub.test",
            links: ["leafa.test", "leafb.test"].map {
                ChatLinkPeer(name: $0, sentPassword: Self.password, expectedPassword: Self.password)
            })
        let hubPort = try #require(hub.server.port)
        var leaves: [NgircdServer] = []
        for name in ["leafa.test", "leafb.test"] {
            leaves.append(
                try await NgircdServer.start(
                    name: name,
                    extra: """
                        [Server]
                        Name = hub.test
                        Host = 127.0.0.1
                        Port = \(hubPort)
                        MyPassword = \(Self.password)
                        PeerPassword = \(Self.password)
                        """))
        }
        #expect(
            await pollUntil { await hub.server.linkedServers.sorted() == ["leafa.test", "leafb.test"] },
            "\(leaves.map(\.process.output))")

        let alice = IRCTestClient(port: leaves[0].port)
        try await alice.register("alice")
        try await alice.join("#hub")
        let bob = IRCTestClient(port: leaves[1].port)
        try await bob.register("bob")
        try await bob.join("#hub")
        let carol = IRCTestClient(port: hubPort)
        try await carol.register("carol")
        try await carol.join("#hub")
        _ = try await alice.waitFor(command: "JOIN", from: "carol")
        _ = try await bob.waitFor(command: "JOIN", from: "carol")

        // alice's line crosses the hub to bob; every member gets it once.
        try await alice.send("PRIVMSG #hub :through the chat-server hub")
        #expect(
            try await bob.waitFor(command: "PRIVMSG", from: "alice").parameters == [
                "#hub", "through the chat-server hub",
            ])
        #expect(
            try await carol.waitFor(command: "PRIVMSG", from: "alice").parameters == [
                "#hub", "through the chat-server hub",
            ])
        try await bob.send("PRIVMSG alice :private, across two links")
        #expect(
            try await alice.waitFor(command: "PRIVMSG", from: "bob").parameters == [
                "alice", "private, across two links",
            ])

        // ngIRCd's own view: the other leaf is behind the hub.
        try await alice.send("LINKS")
        let links = try await alice.waitFor("LINKS of leafb.test") {
            $0.command == "364" && $0.parameters[1] == "leafb.test"
        }
        #expect(links.parameters[2] == "hub.test")
        try await carol.send("MAP")
        var map: [String] = []
        while true {
            let line = try await carol.waitFor("MAP") { $0.command == "006" || $0.command == "007" }
            if line.command == "007" { break }
            map.append(line.parameters.last ?? "")
        }
        #expect(map == ["hub.test [1 users]", "  leafa.test [1 users]", "  leafb.test [1 users]"])

        for client in [alice, bob, carol] { await client.close() }
        await hub.stop()
        for leaf in leaves { await leaf.stop() }
    }

    @Test func aLinkGoesThroughTheSessionsProxy() async throws {
        let proxy = try await Tinyproxy.start()
        let first = try await LinkedChatServer.start(
            "one.test",
            links: [ChatLinkPeer(name: "two.test", sentPassword: Self.password, expectedPassword: Self.password)])
        let firstPort = try #require(first.server.port)
        let session = StreamSession(
            configuration: StreamSessionConfiguration(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port)))
        let second = try await LinkedChatServer.start(
            "two.test",
            links: [
                ChatLinkPeer(
                    name: "one.test", host: "127.0.0.1", port: firstPort, sentPassword: Self.password,
                    expectedPassword: Self.password)
            ], session: session)
        #expect(await pollUntil { await first.server.linkedServers == ["two.test"] })
        #expect(
            await pollUntil { proxy.log.contains("127.0.0.1:\(firstPort)") },
            "the link did not go through the proxy: \(proxy.log)")
        let observer = IRCTestClient(port: try #require(second.server.port))
        try await observer.register("observer")
        let stats = try await ChatServerLinkTests.linkStats(asking: observer)
        #expect(stats.first?.parameters.last?.contains("through HTTP CONNECT") == true, "\(stats)")
        await observer.close()
        await second.stop()
        await first.stop()
        await proxy.stop()
    }
}

/// tinyproxy, an HTTP CONNECT proxy from Debian's package, on 127.0.0.1 and a port of its own.
struct Tinyproxy {
    let process: ObservedProcess
    let port: Int
    let logFile: URL

    /// What tinyproxy logged so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    static func start() async throws -> Tinyproxy {
        let binary = try BuiltProducts.installed("tinyproxy", package: "tinyproxy-bin")
        var lastOutput = ""
        for _ in 0..<5 {
            let port = Int.random(in: 10_000..<20_000)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "tinyproxy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            let logFile = directory.appendingPathComponent("proxy.log")
            let config = directory.appendingPathComponent("tinyproxy.conf")
            // No ConnectPort line: CONNECT is allowed to every port.
            try """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            MaxClients 20
            LogLevel Connect
            LogFile "\(logFile.path)"
            """.write(to: config, atomically: true, encoding: .utf8)
            let process = try ObservedProcess(binary, ["-d", "-c", config.path])
            let proxy = Tinyproxy(process: process, port: port, logFile: logFile)
            if await eventually(15, { canConnectToLoopback(port: port) || !process.child.isRunning() }),
                process.child.isRunning()
            {
                return proxy
            }
            lastOutput = process.output + proxy.log
            await process.stop()
        }
        throw ChildProcessError(description: "tinyproxy did not start: \(lastOutput)")
    }

    func stop() async { await process.stop() }
}
