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

/// Linked servers over real sockets on loopback: chat-server with chat-server, and with
/// ngIRCd in both directions (Protocol.md, "Server links").
@Suite(.timeLimit(.minutes(2))) struct ChatServerLinkTests {
    static let password = "link-secret"

    /// `client` waits for a `command` from `nick` and returns it.

    @Test func twoChatServersShareAChannelAndSplitCleanly() async throws {
        let (first, second) = try await Self.linkedPair()
        let firstPort = try #require(first.server.port)
        var secondStopped = false
        defer { if !secondStopped { Task { [second] in await second.stop() } } }

        let alice = IRCTestClient(port: firstPort)
        try await alice.register("alice")
        try await alice.join("#net")
        let bob = IRCTestClient(port: try #require(second.server.port))
        try await bob.register("bob")
        try await bob.send("JOIN #net")
        let names = try await bob.waitFor(command: "353")
        #expect(Set(names.parameters.last?.split(separator: " ") ?? []) == ["alice", "bob"])
        #expect(try await alice.waitFor(command: "JOIN", from: "bob").parameters == ["#net"])

        // Every message reaches the other side once, in order.
        for index in 1...20 {
            try await bob.send("PRIVMSG #net :from bob \(index)")
        }
        for index in 1...20 {
            let message = try await alice.waitFor(command: "PRIVMSG", from: "bob")
            #expect(message.parameters == ["#net", "from bob \(index)"])
        }
        try await alice.send("PRIVMSG bob :private hello")
        #expect(try await bob.waitFor(command: "PRIVMSG", from: "alice").parameters == ["bob", "private hello"])

        // WHOIS names the server bob is on; LINKS lists both.
        try await alice.send("WHOIS bob")
        #expect(try await alice.waitFor(command: "312").parameters.dropFirst(2).first == "two.test")
        try await alice.send("LINKS")
        let link = try await alice.waitFor("LINKS of two.test") {
            $0.command == "364" && $0.parameters[1] == "two.test"
        }
        #expect(link.parameters[2] == "one.test")

        // STATS l shows the link's connection as its stream task measured it.
        let stats = try await Self.linkStats(asking: alice)
        #expect(stats.count == 1 && stats.first?.parameters[1] == "two.test", "\(stats)")
        if let line = stats.first {
            #expect(
                (Int(line.parameters[3]) ?? 0) > 0 && (Int(line.parameters[4]) ?? 0) > 0, "bytes both ways: \(line)")
            #expect(line.parameters.last?.contains("plaintext") == true, "\(line)")
            #expect(line.parameters.last?.contains("127.0.0.1:") == true, "\(line)")
        }

        // two.test goes away: alice sees bob quit with the two servers' names.
        await second.stop()
        secondStopped = true
        #expect(try await alice.waitFor(command: "QUIT", from: "bob").parameters == ["one.test two.test"])
        #expect(await first.server.networkServers.isEmpty)
        try await alice.send("NAMES #net")
        #expect(try await alice.waitFor(command: "353").parameters.last == "alice")
        await alice.close()
        await bob.close()
        await first.stop()
    }

    @Test func chatServerLinksOutToNgircdAndUsersOfBothTalk() async throws {
        // Two passwords, one each way: ngIRCd gets its MyPassword and sends its PeerPassword.
        let ngircd = try await NgircdServer.start(
            extra: """
                [Server]
                Name = chat.test
                MyPassword = to-ngircd
                PeerPassword = to-chat
                """)
        let chat = try await LinkedChatServer.start(
            "chat.test",
            links: [
                ChatLinkPeer(
                    name: "ngircd.test", host: "127.0.0.1", port: ngircd.port, sentPassword: "to-ngircd",
                    expectedPassword: "to-chat")
            ])
        #expect(await pollUntil { await chat.server.linkedServers == ["ngircd.test"] }, "\(ngircd.process.output)")
        try await Self.talk(
            chatPort: try #require(chat.server.port), ngircdPort: ngircd.port, ngircdName: "ngircd.test")
        await chat.stop()
        await ngircd.stop()
    }

    @Test func ngircdLinksInToChatServer() async throws {
        let chat = try await LinkedChatServer.start(
            "chat.test",
            links: [ChatLinkPeer(name: "ngircd.test", sentPassword: "to-ngircd", expectedPassword: "to-chat")])
        let chatPort = try #require(chat.server.port)
        let ngircd = try await NgircdServer.start(
            extra: """
                [Server]
                Name = chat.test
                Host = 127.0.0.1
                Port = \(chatPort)
                MyPassword = to-ngircd
                PeerPassword = to-chat
                """)
        #expect(await pollUntil(30) { await chat.server.linkedServers == ["ngircd.test"] }, "\(ngircd.process.output)")
        try await Self.talk(chatPort: chatPort, ngircdPort: ngircd.port, ngircdName: "ngircd.test")
        await chat.stop()
        await ngircd.stop()
    }

    /// A linked server that floods a channel slows down (it is read no faster than the others
    /// take its lines); it takes no one down: the users here and the server linked beside it
    /// get every line, and no link is dropped.
    @Test func aFloodingLinkTakesNoOneDown() async throws {
        try await OwnEventLoop.with { loop in try await floodingLink(on: loop.session()) }
    }

    /// The servers and clients of `aFloodingLinkTakesNoOneDown`, all on `session`'s loop.
    private func floodingLink(on session: StreamSession) async throws {
        let (first, second) = try await Self.linkedPair(alsoAccepting: ["flood.test"], session: session)
        let firstPort = try #require(first.server.port)
        let alice = IRCTestClient(port: firstPort, session: session)
        try await alice.register("alice")
        try await alice.join("#flood")
        let bob = IRCTestClient(port: try #require(second.server.port), session: session)
        try await bob.register("bob")
        try await bob.join("#flood")
        _ = try await alice.waitFor(command: "JOIN", from: "bob")

        // The flooding server links in, brings a user into the channel, and sends 20,000
        // lines as fast as the socket takes them.
        let flood = IRCTestClient(port: firstPort, session: session)
        try await flood.send("PASS \(Self.password) 0210-IRC+ flood|1: P")
        try await flood.send("SERVER flood.test 1 :a flood")
        try await flood.send(":flood.test NICK flooder 1 f flood.host 1 + :Flooder")
        try await flood.send(":flood.test NJOIN #flood :flooder")
        _ = try await bob.waitFor(command: "JOIN", from: "flooder")
        let total = 20_000
        let sending = Task {
            var batch = [UInt8]()
            for index in 1...total {
                batch += Array(":flooder PRIVMSG #flood :flood line \(index)\r\n".utf8)
                if index % 1_000 == 0 {
                    try await flood.sendRaw(batch)
                    batch = []
                }
            }
        }
        // Both read at once, as real clients do.
        async let aliceGot = Self.linesInOrder(alice, from: "flooder", count: total)
        async let bobGot = Self.linesInOrder(bob, from: "flooder", count: total)
        #expect(try await aliceGot == total)
        #expect(try await bobGot == total)
        try await sending.value
        #expect(await first.server.linkedServers.sorted() == ["flood.test", "two.test"])
        #expect(await second.server.networkServers == ["flood.test", "one.test"])
        await flood.close()
        await alice.close()
        await bob.close()
        await second.stop()
        await first.stop()
    }

    /// A link that sends a line over the limit (a long message, or a tag section past even the
    /// tagged limit) gets an ERROR and is split away on every server, with its users; it can
    /// link again. It used to close in silence and leave its server and users everywhere.
    @Test func anOverlongLineFromALinkSplitsItAwayEverywhere() async throws {
        let (first, second) = try await Self.linkedPair(alsoAccepting: ["evil.test"])
        let firstPort = try #require(first.server.port)
        let bob = IRCTestClient(port: try #require(second.server.port))
        try await bob.register("bob")
        try await bob.join("#bad")
        for (attempt, overlong) in [
            ":evu PRIVMSG #bad :OVERSIZED " + String(repeating: "x", count: 3_000),
            "@+long=" + String(repeating: "t", count: 9_000) + " :evu PRIVMSG #bad :tagged",
        ].enumerated() {
            let evil = IRCTestClient(port: firstPort)
            try await evil.send("PASS \(Self.password) 0210-IRC+ evil|1: P")
            try await evil.send("SERVER evil.test 1 :not nice")
            try await evil.send(":evil.test NICK evu 1 e evil.host 1 + :Evu")
            try await evil.send(":evil.test NJOIN #bad :evu")
            _ = try await bob.waitFor(command: "JOIN", from: "evu")
            try await evil.sendRaw(Array((overlong + "\r\n").utf8))
            let last = try await evil.readToEnd().last
            #expect(last?.command == "ERROR", "attempt \(attempt): the link closed without an ERROR")
            #expect(last?.parameters.last?.contains("Input line was too long") == true)
            let quit = try await bob.waitFor(command: "QUIT", from: "evu")
            #expect(quit.parameters.last == "one.test evil.test")
            #expect(await pollUntil { await second.server.networkServers == ["one.test"] }, "evil.test stayed")
            #expect(await first.server.linkedServers == ["two.test"])
        }
        await bob.close()
        await second.stop()
        await first.stop()
    }

    /// one.test, which takes links from two.test and from the servers `alsoAccepting` names,
    /// and two.test linked out to it (both on `session`, if given); returned once one.test has
    /// registered the link.
    private static func linkedPair(
        alsoAccepting others: [String] = [], session: StreamSession? = nil
    ) async throws -> (first: LinkedChatServer, second: LinkedChatServer) {
        let accepted = (["two.test"] + others).map {
            ChatLinkPeer(name: $0, sentPassword: password, expectedPassword: password)
        }
        let first = try await LinkedChatServer.start(
            "one.test", links: accepted, session: session, listenerSession: session)
        let firstPort = try #require(first.server.port)
        let second = try await LinkedChatServer.start(
            "two.test",
            links: [
                ChatLinkPeer(
                    name: "one.test", host: "127.0.0.1", port: firstPort, sentPassword: password,
                    expectedPassword: password)
            ], session: session, listenerSession: session)
        #expect(await pollUntil { await first.server.linkedServers == ["two.test"] }, "the link registered")
        return (first, second)
    }

    /// The `211` lines `client` gets for `STATS l`.
    static func linkStats(asking client: IRCTestClient) async throws -> [IRCMessage] {
        try await client.send("STATS l")
        var lines: [IRCMessage] = []
        while true {
            let line = try await client.waitFor("STATS") { $0.command == "211" || $0.command == "219" }
            if line.command == "219" { return lines }
            lines.append(line)
        }
    }

    /// How many of `count` lines `flood line <n>` from `nick` `client` reads, in order, before
    /// the first that is not the next one.
    private static func linesInOrder(_ client: IRCTestClient, from nick: String, count: Int) async throws -> Int {
        for index in 1...count {
            let line = try await client.waitFor(command: "PRIVMSG", from: nick, timeout: 60)
            guard line.parameters.last == "flood line \(index)" else { return index - 1 }
        }
        return count
    }

    /// The away text `client`'s `WHOIS` shows for `nick`, asked until it shows one (20 times
    /// at most); `nil` if it never does.
    private static func awayText(of nick: String, askedBy client: IRCTestClient) async throws -> String? {
        for _ in 0..<20 {
            try await client.send("WHOIS \(nick)")
            var away: String?
            while true {
                let line = try await client.waitFor("WHOIS") { ["301", "318"].contains($0.command) }
                if line.command == "318" { break }
                away = line.parameters.last
            }
            if let away { return away }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// alice on chat-server and bob on ngIRCd share a channel, message each other, see each
    /// other's nick change and quit.
    private static func talk(chatPort: Int, ngircdPort: Int, ngircdName: String) async throws {
        let alice = IRCTestClient(port: chatPort)
        try await alice.register("alice")
        try await alice.join("#net")
        let bob = IRCTestClient(port: ngircdPort)
        try await bob.register("bob")
        try await bob.send("JOIN #net")
        let names = try await bob.waitFor(command: "353")
        #expect(
            Set((names.parameters.last ?? "").split(separator: " ").map { $0.trimmingCharacters(in: ["@", "+"]) }) == [
                "alice", "bob",
            ])
        #expect(try await alice.waitFor(command: "JOIN", from: "bob").parameters.first == "#net")

        try await bob.send("PRIVMSG #net :hello from ngIRCd")
        #expect(try await alice.waitFor(command: "PRIVMSG", from: "bob").parameters == ["#net", "hello from ngIRCd"])
        try await alice.send("PRIVMSG #net :hello from chat-server")
        #expect(
            try await bob.waitFor(command: "PRIVMSG", from: "alice").parameters == ["#net", "hello from chat-server"])
        try await alice.send("PRIVMSG bob :just for you")
        #expect(try await bob.waitFor(command: "PRIVMSG", from: "alice").parameters == ["bob", "just for you"])

        try await bob.send("TOPIC #net :set on ngIRCd")
        #expect(try await alice.waitFor(command: "TOPIC", from: "bob").parameters == ["#net", "set on ngIRCd"])
        try await alice.send("WHOIS bob")
        #expect(try await alice.waitFor(command: "312").parameters.dropFirst(2).first == ngircdName)
        try await bob.send("WHOIS alice")
        #expect(try await bob.waitFor(command: "312").parameters.dropFirst(2).first == "chat.test")

        // Away crosses the link as ngIRCd carries it, a user mode without the text.
        // (The asker's server hears of it over the link a moment after the `306`: ask until
        // it has.)
        try await alice.send("AWAY :tea")
        try await alice.waitFor(command: "306")
        #expect(try await awayText(of: "alice", askedBy: bob) == "Away")
        try await bob.send("AWAY :lunch")
        try await bob.waitFor(command: "306")
        #expect(try await awayText(of: "bob", askedBy: alice) == "Away")

        try await bob.send("NICK robert")
        #expect(try await alice.waitFor(command: "NICK", from: "bob").parameters == ["robert"])
        try await bob.send("QUIT :bye now")
        #expect(try await alice.waitFor(command: "QUIT", from: "robert").parameters.first?.contains("bye now") == true)
        await alice.close()
        await bob.close()
    }
}
