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
import StreamTaskTestSupport
import Testing

/// An IRC network on test hosts (``ChatNetworkLab``): an ngIRCd hub, two chat-servers linked
/// to it on hosts of their own, and clients (irssi, our chat client, and the test's) on the
/// LAN. The servers and clients are the real programs.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled("needs root and `ip netns` (iproute2); CI=true makes it mandatory") { await RouteLab.isAvailable() })
struct ChatNetworkTests {
    static let password = "lab-link-secret"
    static let port = 6667

    /// The lab with its three servers running and linked.
    struct Network {
        let lab: ChatNetworkLab
        let hub: ObservedProcess
        let one: ObservedProcess
        let two: ObservedProcess
        let directory: URL

        func stop() async {
            for process in [one, two, hub] { await process.stop() }
            try? FileManager.default.removeItem(at: directory)
            await lab.remove()
        }

        /// The last lines each server wrote, for a failure's report.
        var outputs: String {
            [("hub", hub), ("one", one), ("two", two)].map { name, process in
                "\(name):\n" + process.output.split(separator: "\n").suffix(40).joined(separator: "\n")
            }.joined(separator: "\n")
        }

        /// A client of the test process, on `host`'s LAN address.
        func client(on host: ChatNetworkLab.Host) -> IRCTestClient {
            IRCTestClient(host: lab.address(host), port: ChatNetworkTests.port)
        }
    }

    static func startNetwork(impairment: ChatNetworkLab.Impairment? = nil) async throws -> Network {
        let lab = try await ChatNetworkLab.create(impairment: impairment)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-net-\(UUID().uuidString)")
        var started: [ObservedProcess] = []
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            let config = directory.appendingPathComponent("ngircd.conf")
            try """
            [Global]
            Name = hub.test
            Info = the lab's hub
            Listen = 0.0.0.0
            Ports = \(port)
            \(geteuid() == 0 ? "ServerUID = 65534\nServerGID = 65534" : "")
            [Limits]
            MaxConnectionsIP = 0
            MaxNickLength = 20
            PingTimeout = 5
            PongTimeout = 5
            [Options]
            PAM = no
            Ident = no
            DNS = no
            [Server]
            Name = one.test
            MyPassword = \(password)
            PeerPassword = \(password)
            [Server]
            Name = two.test
            MyPassword = \(password)
            PeerPassword = \(password)
            """.write(to: config, atomically: true, encoding: .utf8)
            let ngircd = try BuiltProducts.installed("ngircd", package: "ngircd")
            let hub = try lab.start(on: .hub, [ngircd, "-n", "-f", config.path])
            started.append(hub)
            guard await hub.waitForOutput(containing: "Now listening on [0.0.0.0]:\(port)") else {
                throw RouteLab.LabError(message: "ngIRCd did not start: \(hub.output)")
            }
            var servers: [ObservedProcess] = []
            for server in [ChatNetworkLab.Host.one, .two] {
                let process = try lab.start(
                    on: server,
                    [
                        try BuiltProducts.path("chat-server"), "--host", "0.0.0.0", "--port", "\(port)",
                        "--server-name", "\(server.rawValue).test", "--name", "Lab", "--no-advertise", "--no-tls",
                        "--max-per-address", "0", "--no-flood-limit", "--link-idle-timeout", "5", "--link-ping-timeout",
                        "5",
                        "--link-retry-maximum", "1", "--link",
                        "hub.test=\(lab.hubAddress(toward: server)):\(port)", "--link-password", password, "-v",
                    ])
                started.append(process)
                servers.append(process)
                guard await process.waitForOutput(containing: "listening on") else {
                    throw RouteLab.LabError(message: "chat-server \(server) did not start: \(process.output)")
                }
            }
            let network = Network(lab: lab, hub: hub, one: servers[0], two: servers[1], directory: directory)
            try await waitForLinks(network, seeing: ["hub.test", "one.test", "two.test"])
            return network
        } catch {
            for process in started { await process.stop() }
            try? FileManager.default.removeItem(at: directory)
            await lab.remove()
            throw error
        }
    }

    /// Waits until `LINKS` on each chat-server names every server in `names`.
    static func waitForLinks(_ network: Network, seeing names: Set<String>, seconds: Double = 40) async throws {
        for host in [ChatNetworkLab.Host.one, .two] {
            let probe = network.client(on: host)
            try await probe.register("probe\(host.rawValue)")
            let deadline = Date().addingTimeInterval(seconds)
            var seen: Set<String> = []
            while seen != names, Date() < deadline {
                try await probe.send("LINKS")
                seen = []
                while true {
                    let line = try await probe.waitFor("LINKS") { $0.command == "364" || $0.command == "365" }
                    if line.command == "365" { break }
                    seen.insert(line.parameters[1])
                }
                if seen != names { try await Task.sleep(for: .milliseconds(250)) }
            }
            try await probe.send("QUIT")
            await probe.close()
            guard seen == names else {
                throw RouteLab.LabError(message: "\(host) sees \(seen.sorted()), not \(names.sorted())")
            }
        }
    }

    @Test func usersOnThreeServersShareAChannelThroughSplitAndRejoin() async throws {
        let network = try await Self.startNetwork()
        let lab = network.lab
        let tmux = try BuiltProducts.installed("tmux", package: "tmux")
        let irssi = try BuiltProducts.installed("irssi", package: "irssi")
        let home = network.directory.appendingPathComponent("irssi")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let session = TmuxSession(tmux: tmux, socket: "chat-net-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        var ours: ObservedProcess?
        var step = "starting irssi"
        do {
            // irssi on the client host, on chat-server one.
            try await session.start(
                lab.on(
                    .cli,
                    [irssi, "--home=\(home.path)", "-n", "irssiuser", "-c", lab.address(.one), "-p", "\(Self.port)"]
                )
                .joined(separator: " "), width: 200, height: 50)
            try await session.expectScreen(containing: "Welcome to the Lab IRC Network")
            try await session.type("/join #lab")
            try await session.expectScreen(containing: "has joined #lab")

            // Our client on the client host, on chat-server two.
            step = "our client"
            let client = try lab.start(
                on: .cli,
                [
                    try BuiltProducts.path("chat-client"), "--host", lab.address(.two), "--port", "\(Self.port)",
                    "--nick", "ours", "--channel", "#lab",
                ], pipeInput: true)
            ours = client
            #expect(await client.waitForOutput(containing: "registered as ours"), "\(client.output)")

            // And the test's own: carol on the hub (ngIRCd), dave on one, erin on two.
            step = "test clients"
            let carol = network.client(on: .hub)
            try await carol.register("carol")
            try await carol.join("#lab")
            let dave = network.client(on: .one)
            try await dave.register("dave")
            try await dave.join("#lab")
            let erin = network.client(on: .two)
            try await erin.register("erin")
            try await erin.join("#lab")
            // Each join is known on its own server at once, and on the others once it has
            // crossed the links (dave's, from one through the hub to two): ask until it has.
            let everyone: Set<String> = ["irssiuser", "ours", "carol", "dave", "erin"]
            var members: Set<String> = []
            for _ in 0..<50 where members != everyone {
                try await erin.send("NAMES #lab")
                let names = try await erin.waitFor(command: "353")
                members = Set((names.parameters.last ?? "").split(separator: " ").map(String.init))
                try await erin.waitFor(command: "366")
                if members != everyone { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(members == everyone)

            // irssi and our client talk across two links.
            step = "irssi and our client talk"
            // (carol reads all along: the hub drops a client that leaves its PING unanswered for
            // 5 seconds, a short timeout so that it notices a dead link soon.)
            try await session.type("hello from irssi")
            #expect(
                try await carol.waitFor(command: "PRIVMSG", from: "irssiuser", timeout: 30).parameters == [
                    "#lab", "hello from irssi",
                ])
            #expect(await client.waitForOutput(containing: "<irssiuser> hello from irssi"), "\(client.output)")
            client.send("hello from chat-client")
            #expect(
                try await carol.waitFor(command: "PRIVMSG", from: "ours", timeout: 30).parameters == [
                    "#lab", "hello from chat-client",
                ])
            try await session.expectScreen(containing: "hello from chat-client")

            // Every message reaches every member once and in order.
            step = "200 messages"
            for index in 1...200 { try await dave.send("PRIVMSG #lab :dave \(index)") }
            for reader in [carol, erin] {
                for index in 1...200 {
                    let line = try await reader.waitFor(command: "PRIVMSG", from: "dave", timeout: 30)
                    #expect(line.parameters == ["#lab", "dave \(index)"])
                    if line.parameters != ["#lab", "dave \(index)"] { break }
                }
            }

            // The link between the hub and two goes down: a netsplit, one line for our client.
            step = "split"
            try await carol.send("QUIT")
            await carol.close()
            try await lab.setLink(.two, up: false)
            let quit = try await dave.waitFor(command: "QUIT", from: "erin", timeout: 60)
            #expect(quit.parameters == ["hub.test two.test"])
            // two's route monitor saw its end of the link lose its carrier, and two asked the
            // hub at once rather than waiting for the link to fall idle.
            #expect(network.two.output.contains("a link's path went away"), "\(network.two.output)")
            #expect(
                await client.waitForOutput(containing: "netsplit, two.test <-> hub.test: ", seconds: 60),
                "\(client.output)")
            #expect(client.output.components(separatedBy: "netsplit, ").count == 2, "one line: \(client.output)")

            // Up again: two links back in, and the rejoin is one line too.
            step = "rejoin"
            try await lab.setLink(.two, up: true)
            _ = try await dave.waitFor(command: "JOIN", from: "erin", timeout: 60)
            #expect(
                await client.waitForOutput(containing: "netsplit over, two.test <-> hub.test: ", seconds: 60),
                "\(client.output)")
            // Nothing sent after the rejoin is lost.
            step = "after the rejoin"
            try await Self.waitForLinks(network, seeing: ["hub.test", "one.test", "two.test"])
            for index in 1...50 { try await dave.send("PRIVMSG #lab :after \(index)") }
            for index in 1...50 {
                let line = try await erin.waitFor(command: "PRIVMSG", from: "dave", timeout: 30)
                #expect(line.parameters == ["#lab", "after \(index)"])
            }
            #expect(await client.waitForOutput(containing: "<dave> after 50"), "\(client.output)")

            // No server crashed; the chat-servers' memory stays small.
            step = "memory"
            for process in [network.hub, network.one, network.two] {
                #expect(process.child.isRunning(), "\(process.output)")
            }
            for process in [network.one, network.two] {
                let rss = Self.residentKilobytes(of: process.child.pid)
                #expect(rss.map { $0 < 256 * 1024 } ?? false, "resident set \(rss.map(String.init) ?? "?") KiB")
            }
            client.send("/quit")
            for reader in [dave, erin] { await reader.close() }
            try await session.type("/quit")
            await session.stop()
            await client.stop()
            await network.stop()
        } catch {
            Issue.record("at \(step): \(error)\n\(network.outputs)\nour client:\n\(ours?.output ?? "")")
            await session.stop()
            await ours?.stop()
            await network.stop()
        }
    }

    @Test func tenThousandMessagesCrossLossyDelayedLinksCompleteAndInOrder() async throws {
        // 100 ms ± 20 ms, 2 % loss, a quarter of the packets overtaking the delayed ones.
        let network = try await Self.startNetwork(impairment: ChatNetworkLab.Impairment())
        do {
            let sender = network.client(on: .one)
            try await sender.register("sender")
            try await sender.join("#bulk")
            let receiver = network.client(on: .two)
            try await receiver.register("receiver")
            try await receiver.join("#bulk")
            _ = try await sender.waitFor(command: "JOIN", from: "receiver", timeout: 30)
            // In batches the links can carry: the sender does not outrun what the hub may
            // buffer, and the count of lines in flight stays bounded.
            let total = 10_000
            let batch = 250
            var next = 1
            while next <= total {
                let end = min(total, next + batch - 1)
                for index in next...end { try await sender.send("PRIVMSG #bulk :line \(index)") }
                for index in next...end {
                    let line = try await receiver.waitFor(command: "PRIVMSG", from: "sender", timeout: 60)
                    guard line.parameters == ["#bulk", "line \(index)"] else {
                        Issue.record("expected line \(index), got \(line.parameters)")
                        throw RouteLab.LabError(message: "out of order")
                    }
                }
                next = end + 1
            }
            #expect(next == total + 1)
            await sender.close()
            await receiver.close()
            await network.stop()
        } catch {
            Issue.record("\(error)\n\(network.outputs)")
            await network.stop()
        }
    }

    /// The resident set of process `pid`, in KiB.
    static func residentKilobytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}
