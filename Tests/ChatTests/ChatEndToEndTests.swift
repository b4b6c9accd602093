//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import ChatServerCore
import Foundation
import NIOConcurrencyHelpers
import StreamTaskKit
import Testing

/// The chat server over real loopback connections, with bare IRC clients.
@Suite(.timeLimit(.minutes(3)))
struct ChatEndToEndTests {
    /// Every message reaches every other member exactly once, and each sender's messages arrive
    /// in the order sent.
    @Test func everyMessageReachesEveryMemberOnceInOrder() async throws {
        let members = 5
        let perSender = 40
        try await ChatServerFixture.with({ $0.floodBurst = nil }) { _, port in
            var clients: [IRCTestClient] = []
            for index in 0..<members {
                let client = IRCTestClient(port: port)
                try await client.register("user\(index)")
                try await client.join("#room")
                clients.append(client)
            }
            // Wait until everyone sees everyone's JOIN, so no message precedes a membership.
            for (index, client) in clients.enumerated() {
                let later = members - 1 - index
                for _ in 0..<later { try await client.waitFor(command: "JOIN") }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        for number in 0..<perSender {
                            try await client.send("PRIVMSG #room :\(index) \(number)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            for (index, client) in clients.enumerated() {
                var next = [Int](repeating: 0, count: members)
                for _ in 0..<(perSender * (members - 1)) {
                    let message = try await client.waitFor(command: "PRIVMSG")
                    let words = message.parameters[1].split(separator: " ").compactMap { Int($0) }
                    try #require(words.count == 2, "unexpected text \(message)")
                    let (sender, number) = (words[0], words[1])
                    #expect(sender != index, "\(message) was echoed to its sender")
                    #expect(
                        number == next[sender],
                        "user\(index) got \(sender)'s message \(number), expected \(next[sender])")
                    #expect(message.source?.hasPrefix("user\(sender)!") == true)
                    next[sender] = number + 1
                }
                let expected = (0..<members).map { $0 == index ? 0 : perSender }
                #expect(next == expected)
            }
            // Nothing more: no duplicate arrives after a PING round trip.
            for client in clients {
                try await client.send("PING done")
                let after = try await client.waitFor(command: "PONG")
                #expect(after.parameters.last == "done")
                #expect(await client.received.filter { $0.command == "PRIVMSG" }.count == perSender * (members - 1))
            }
            for client in clients { await client.close() }
        }
    }

    @Test func aTakenNicknameIsRefusedWhateverItsCase() async throws {
        try await ChatServerFixture.with { _, port in
            let alice = IRCTestClient(port: port)
            try await alice.register("alice")
            let other = IRCTestClient(port: port)
            try await other.send("NICK ALICE")
            let refused = try await other.waitFor(command: "433")
            #expect(refused.parameters == ["*", "ALICE", "Nickname is already in use"])
            try await other.send("USER bob 0 * :Bob")
            try await other.send("NICK bob")
            let welcome = try await other.waitFor(command: "001")
            #expect(welcome.parameters.first == "bob")
            // Once registered, taking alice's nick is refused too, and changing one's own case
            // is allowed and announced.
            try await other.send("NICK Alice")
            #expect(try await other.waitFor(command: "433").parameters[1] == "Alice")
            try await alice.send("NICK ALICE")
            let change = try await alice.waitFor(command: "NICK")
            #expect(change.source?.hasPrefix("alice!") == true)
            #expect(change.parameters == ["ALICE"])
            await alice.close()
            await other.close()
        }
    }

    /// A client that stops reading is dropped when its send queue passes the limit; the others
    /// go on receiving everything, and see it quit.
    @Test func aSlowReaderIsDisconnectedWhileTheOthersKeepReceiving() async throws {
        try await OwnEventLoop.with { loop in try await slowReader(on: loop.session()) }
    }

    /// The server and clients of `aSlowReaderIsDisconnectedWhileTheOthersKeepReceiving`, all on
    /// `session`'s loop.
    private func slowReader(on session: StreamSession) async throws {
        try await ChatServerFixture.with(session: session) {
            $0.floodBurst = nil
            $0.sendQueueLimit = 32 * 1024
        } _: { _, port in
            // A slow reader with a small receive buffer, so the kernel holds little for it.
            let clients = try await members(of: "#busy", port: port, session: session, "slow", "sender", "reader")
            let (slow, sender, reader) = (clients[0], clients[1], clients[2])

            // `slow` reads nothing from here on. Send until the server gives up on it: more than
            // its send queue and the kernel's buffers for it hold (64 KiB send buffer, set by
            // the server, and a little receive buffer).
            let text = String(repeating: "x", count: 460)
            let total = 3_000
            let progress = NIOLockedValueBox(0)
            let readerCount = Task {
                var count = 0
                var sawQuit = false
                while count < total || !sawQuit {
                    let message = try await reader.waitFor("traffic", timeout: 30) {
                        $0.command == "PRIVMSG" || $0.command == "QUIT"
                    }
                    if message.command == "QUIT" {
                        #expect(message.source?.hasPrefix("slow!") == true)
                        #expect(message.parameters.last == "SendQ exceeded")
                        sawQuit = true
                    } else {
                        #expect(
                            message.parameters[1].hasPrefix("\(count) "),
                            "message \(count) out of order: \(message.parameters[1].prefix(12))")
                        count += 1
                        progress.withLockedValue { $0 = count }
                    }
                }
                return count
            }
            for number in 0..<total {
                try await sender.send("PRIVMSG #busy :\(number) \(text)")
                // Paced by the reader that keeps up (at most 40 lines ahead of it, however slow
                // this machine is), never by the one that stopped: the server must drop that one
                // and slow no one for its sake.
                let deadline = ContinuousClock.now + .seconds(30)
                while number - progress.withLockedValue({ $0 }) > 40, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            #expect(try await readerCount.value == total)
            // The slow client's connection was closed by the server: reading it to the end ends.
            let leftovers = try await slow.readToEnd(timeout: 30)
            #expect(leftovers.filter { $0.command == "PRIVMSG" }.count < total, "the slow reader was never cut off")
            await slow.close()
            await sender.close()
            await reader.close()
        }
    }

    /// A client that asks for more than it reads overflows its own send queue with the
    /// replies: the server drops it, and the channel hears why.
    @Test func aClientOverflowingItsOwnSendQueueIsDisconnected() async throws {
        try await OwnEventLoop.with { loop in try await overflowingClient(on: loop) }
    }

    /// The server and clients of `aClientOverflowingItsOwnSendQueueIsDisconnected`, all on
    /// `loop`.
    private func overflowingClient(on loop: OwnEventLoop) async throws {
        try await ChatServerFixture.with(session: loop.session()) {
            $0.floodBurst = nil
            $0.sendQueueLimit = 16 * 1024
        } _: { server, port in
            let watcher = try await members(of: "#c", port: port, session: loop.session(), "watcher")[0]
            // `greedy` buffers little of what it does not read (16 KiB, not the default 256 KiB),
            // so the kernel's receive buffer for it does not grow either: the server keeps up
            // with what it asks for until those buffers are full, and only then drops it.
            let greedy = IRCTestClient(
                port: port,
                session: loop.session(configuration: .init(inboundBufferLimit: 16 * 1024, proxy: .direct)))
            try await greedy.register("greedy")
            try await greedy.join("#c")
            _ = try await watcher.waitFor("greedy joining") {
                $0.command == "JOIN" && $0.source?.hasPrefix("greedy!") == true
            }
            // From here `greedy` reads nothing. Each WHOIS brings a few hundred bytes back: 10,000
            // of them are several times what the kernel's buffers and the client's own hold.
            for _ in 0..<10_000 {
                do { try await greedy.send("WHOIS greedy watcher") } catch { break }
            }
            // 60 s: under the thread sanitizer beside the whole suite, the server took more
            // than 30 s to work through the WHOIS flood and drop the client.
            let quit = try await watcher.waitFor(command: "QUIT", timeout: 60)
            #expect(quit.source?.hasPrefix("greedy!") == true)
            #expect(quit.parameters.last == "SendQ exceeded")
            #expect(await server.clientCount == 1)
            await greedy.close()
            await watcher.close()
        }
    }

    @Test func aFloodingClientIsThrottledThenDisconnected() async throws {
        try await ChatServerFixture.with { _, port in
            let flooder = IRCTestClient(port: port)
            try await flooder.register("flooder")
            var burst: [UInt8] = []
            for number in 0..<60 { burst += Array("PING \(number)\r\n".utf8) }
            try await flooder.sendRaw(burst)
            let messages = try await flooder.readToEnd()
            let pongs = messages.filter { $0.command == "PONG" }
            #expect(!pongs.isEmpty && pongs.count < 60, "\(pongs.count) of 60 answered")
            #expect(messages.last?.command == "ERROR")
            #expect(messages.last?.parameters.last?.contains("Excess Flood") == true)
        }
    }

    @Test func anOverlongLineGets417AndTheNextLineStillCounts() async throws {
        try await ChatServerFixture.with { server, port in
            let client = IRCTestClient(port: port)
            try await client.register("longwinded")
            let long = "PRIVMSG #x :" + String(repeating: "y", count: 2000)
            try await client.sendRaw(Array((long + "\r\nPING after\r\n").utf8))
            #expect(try await client.waitFor(command: "417").parameters == ["longwinded", "Input line was too long"])
            #expect(try await client.waitFor(command: "PONG").parameters.last == "after")
            // Garbage does no harm either: NUL, invalid UTF-8, a stray CR, a lone prefix.
            try await client.sendRaw([0x50, 0x49, 0x4E, 0x47, 0x20, 0x00, 0x0D, 0x0A])
            try await client.sendRaw(Array("PRIVMSG longwinded :\u{FF}".utf8) + [0xFF, 0xFE, 0x0D, 0x0A])
            try await client.sendRaw(Array(":only-a-prefix\r\nPI\rNG x\r\nPING still\r\n".utf8))
            #expect(try await client.waitFor(command: "PONG").parameters.last == "still")
            #expect(await server.clientCount == 1)
            await client.close()
        }
    }

    /// A line past even the tagged limit (an endless one, as a hostile client sends) is
    /// answered once with `417` and skipped up to its end; the line after it counts.
    @Test func aLineOverEvenTheTaggedLimitGetsOne417AndIsSkippedWhole() async throws {
        try await ChatServerFixture.with { server, port in
            let client = IRCTestClient(port: port)
            try await client.register("endless")
            let endless = "PRIVMSG endless :" + String(repeating: "z", count: 100_000)
            try await client.sendRaw(Array((endless + "\r\nPING after\r\n").utf8))
            #expect(try await client.waitFor(command: "PONG").parameters.last == "after")
            #expect(await client.received.filter { $0.command == "417" }.count == 1)
            // A piece of the line handled as a line would be an unknown command.
            #expect(await !client.received.contains { $0.command == "421" }, "a piece of the line was handled")
            // A tagged line may pass 512 bytes by its tags.
            let tags = "@+example/long=" + String(repeating: "t", count: 3000)
            try await client.sendRaw(Array((tags + " PING tagged\r\n").utf8))
            try await client.waitFor("the tagged line's PONG") {
                $0.command == "PONG" && $0.parameters.last == "tagged"
            }
            #expect(await server.clientCount == 1)
            await client.close()
        }
    }

    @Test func aClientThatNeverRegistersIsDropped() async throws {
        try await ChatServerFixture.with({ $0.registrationTimeout = .milliseconds(500) }) { _, port in
            let client = IRCTestClient(port: port)
            try await client.send("NICK lurker")
            let messages = try await client.readToEnd()
            #expect(messages.last?.command == "ERROR")
            #expect(messages.last?.parameters.last == "Closing Link: 127.0.0.1 (Registration timed out)")
        }
    }

    @Test func anIdleClientIsPingedThenDroppedAndItsChannelsSeeItQuit() async throws {
        try await ChatServerFixture.with({
            // 5 s each: the server counts from a client's last line, and on a loaded machine
            // (the suite runs its tests side by side) the test's own task can take seconds
            // between two lines of a client's registration.
            $0.idleTimeout = .seconds(5)
            $0.pingTimeout = .seconds(5)
        }) { _, port in
            // The watcher joins first and from then on sends a line of its own twice a second,
            // so that its idle timer never runs, however long the reads below are held up.
            let watcher = IRCTestClient(port: port)
            try await watcher.register("watcher")
            try await watcher.join("#c")
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await watcher.send("PING :alive")
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
            defer { keepAlive.cancel() }
            // `idle` joins a channel that the watcher is already in: its timers start from
            // that last line, and whenever it is dropped, the watcher is a member to tell.
            let idle = IRCTestClient(port: port)
            try await idle.register("idle")
            try await idle.join("#c")
            await idle.stopAnsweringPings()
            async let watched = watcher.waitFor(command: "QUIT", timeout: 60)
            let ping = try await idle.waitFor(command: "PING")
            #expect(ping.parameters == ["chat.test"])
            let quit: IRCMessage
            do {
                quit = try await watched
            } catch {
                // Say why the server let the watcher go, if it said.
                let last = await watcher.received.suffix(3).map { "\($0.command) \($0.parameters)" }
                Issue.record("the watcher saw no QUIT (\(error)); its last messages: \(last)")
                throw error
            }
            #expect(quit.source?.hasPrefix("idle!") == true)
            #expect(quit.parameters.last?.hasPrefix("Ping timeout") == true)
            let end = try await idle.readToEnd()
            #expect(end.last?.command == "ERROR")
            await watcher.close()
        }
    }

    @Test func pastMaxClientsANewConnectionIsToldTheServerIsFull() async throws {
        try await ChatServerFixture.with({ $0.maximumClients = 2 }) { server, port in
            let first = IRCTestClient(port: port)
            try await first.register("one")
            let second = IRCTestClient(port: port)
            try await second.register("two")
            let third = IRCTestClient(port: port)
            let messages = try await third.readToEnd()
            #expect(messages.map(\.command) == ["ERROR"])
            #expect(messages.first?.parameters.last == "Closing Link: 127.0.0.1 (Server is full)")
            #expect(await server.clientCount == 2)
            await first.close()
            await second.close()
        }
    }

    /// Protocol.md, section 5: a client gets a last `ERROR` when the server shuts down, and
    /// nothing after it, not even the relay of a line another client sends then.
    @Test func onShutdownEveryClientGetsALastErrorLineAndNothingAfter() async throws {
        try await ChatServerFixture.with { server, port in
            let clients = try await members(of: "#c", port: port, "first", "second")
            let (first, second) = (clients[0], clients[1])
            let stopping = Task { await server.shutdown() }
            let error = try await first.waitFor(command: "ERROR")
            #expect(error.parameters.last == "Closing Link: 127.0.0.1 (Server shutting down)")
            try? await second.send("PRIVMSG #c :after the end")
            #expect(try await first.readToEnd().isEmpty, "nothing after ERROR")
            let rest = try await second.readToEnd()
            #expect(rest.map(\.command) == ["ERROR"])
            // Clients close when the server does, and then so do their connections.
            await first.close()
            await second.close()
            await stopping.value
        }
    }

    /// STARTTLS as Protocol.md describes it, with the client pinning the certificate.
    @Test func startTLSUpgradesAndTheRegistrationGoesOnInTLS() async throws {
        let tls = try ChatServerFixture.makeTLS()
        let session = try ChatServerFixture.pinnedSession(for: tls)
        try await ChatServerFixture.with(tls: tls) { _, port in
            let client = IRCTestClient(port: port, session: session)
            try await client.send("CAP LS 302")
            #expect(try await client.waitFor(command: "CAP").parameters == ["*", "LS", "tls"])
            try await client.send("STARTTLS")
            #expect(try await client.waitFor(command: "670").parameters.first == "*")
            try await client.task.startTLS(timeout: 10)
            try await client.finishRegistration("secure")
            #expect(client.task.metrics.negotiatedTLSVersion != nil)
            try await client.send("STARTTLS")
            #expect(try await client.waitFor(command: "691").parameters.last == "STARTTLS failed (already registered)")
            await client.close()
        }
    }

    /// `CAP LS` and `STARTTLS` in one packet: both answers arrive in plaintext, in order, even
    /// though the server gathers replies while a write is out, and the handshake follows.
    @Test func startTLSRightAfterAnotherCommandStillAnswersInPlaintext() async throws {
        let tls = try ChatServerFixture.makeTLS()
        let session = try ChatServerFixture.pinnedSession(for: tls)
        try await ChatServerFixture.with(tls: tls) { _, port in
            for round in 0..<5 {
                let client = IRCTestClient(port: port, session: session)
                try await client.sendRaw(Array("CAP LS 302\r\nPING \(round)\r\nSTARTTLS\r\n".utf8))
                #expect(try await client.waitFor(command: "CAP").parameters == ["*", "LS", "tls"])
                #expect(try await client.waitFor(command: "PONG").parameters.last == "\(round)")
                #expect(try await client.waitFor(command: "670").parameters.first == "*")
                try await client.task.startTLS(timeout: 10)
                try await client.finishRegistration("tls\(round)")
                await client.close()
            }
        }
    }

    /// What clients send on their own, unasked (epic5's USERHOST after 001, ircII's ISON for
    /// /notify, everyone's /whois and /away), is answered over real connections, and WHOIS
    /// knows which connection went through STARTTLS.
    @Test func awayUserhostIsonAndWhoisAreAnsweredAndWhoisSeesSTARTTLS() async throws {
        let tls = try ChatServerFixture.makeTLS()
        let session = try ChatServerFixture.pinnedSession(for: tls)
        try await ChatServerFixture.with(tls: tls) { _, port in
            let secure = IRCTestClient(port: port, session: session)
            try await secure.send("STARTTLS")
            try await secure.waitFor(command: "670")
            try await secure.task.startTLS(timeout: 10)
            try await secure.register("secure")
            try await secure.join("#q")
            let plain = IRCTestClient(port: port)
            try await plain.register("plain")
            try await plain.join("#q")

            try await secure.send("AWAY :back soon")
            #expect(try await secure.waitFor(command: "306").parameters.first == "secure")
            try await plain.send("USERHOST secure plain")
            #expect(
                try await plain.waitFor(command: "302").parameters == [
                    "plain", "secure=-secure@127.0.0.1 plain=+plain@127.0.0.1",
                ])
            try await plain.send("ISON :SECURE nobody plain")
            #expect(try await plain.waitFor(command: "303").parameters == ["plain", "secure plain"])
            try await plain.send("PRIVMSG secure :hi")
            #expect(try await plain.waitFor(command: "301").parameters == ["plain", "secure", "back soon"])
            #expect(try await secure.waitFor(command: "PRIVMSG").parameters == ["secure", "hi"])

            #expect(try await whois("secure", asking: plain) == ["311", "319", "312", "301", "671", "317", "318"])
            #expect(try await whois("plain", asking: secure) == ["311", "319", "312", "317", "318"])
            await secure.close()
            await plain.close()
        }
    }

    /// The commands of the reply to `WHOIS <nick>`, from its `311` or `401` to its `318`.
    private func whois(_ nick: String, asking client: IRCTestClient) async throws -> [String] {
        try await client.send("WHOIS \(nick)")
        var commands = [
            try await client.waitFor("the start of the WHOIS reply") { ["311", "401"].contains($0.command) }.command
        ]
        while commands.last != "318" {
            guard let message = try await client.next() else {
                throw IRCTestClient.Timeout(description: "the connection ended in a WHOIS reply")
            }
            commands.append(message.command)
        }
        return commands
    }

    /// Bytes that follow STARTTLS in plaintext are never processed: the connection is closed.
    @Test func plaintextPipelinedAfterSTARTTLSIsNeverProcessed() async throws {
        let tls = try ChatServerFixture.makeTLS()
        try await ChatServerFixture.with(tls: tls) { server, port in
            let watcher = IRCTestClient(port: port)
            try await watcher.register("watcher")
            let attacker = IRCTestClient(port: port)
            try await attacker.sendRaw(Array("STARTTLS\r\nNICK injected\r\nUSER i 0 * :i\r\n".utf8))
            let messages = try await attacker.readToEnd()
            #expect(!messages.contains { $0.command == "001" })
            try await watcher.send("WHO injected")
            let who = try await watcher.waitFor(command: "315")
            #expect(await watcher.received.filter { $0.command == "352" }.isEmpty, "the injected NICK was processed")
            #expect(who.parameters[1] == "injected")
            #expect(await server.clientCount == 1)
            await watcher.close()
        }
    }

    @Test func evenALineTheProtocolDropsMayNotFollowSTARTTLS() async throws {
        let tls = try ChatServerFixture.makeTLS()
        try await ChatServerFixture.with(tls: tls) { server, port in
            let client = IRCTestClient(port: port)
            // An empty line is dropped silently anywhere else; after STARTTLS it is plaintext
            // where only a handshake may come.
            try await client.sendRaw(Array("STARTTLS\r\n\r\n".utf8))
            let messages = try await client.readToEnd()
            #expect(
                messages.contains {
                    $0.command == "ERROR" && $0.parameters.last?.contains("Plaintext after STARTTLS") == true
                })
            #expect(await server.clientCount == 0)
        }
    }

    /// Clients registered as `nicks`, in order, each joined to `channel`; returned once the
    /// first has seen the last one join.
    private func members(
        of channel: String, port: Int, session: StreamSession? = nil, _ nicks: String...
    ) async throws -> [IRCTestClient] {
        var clients: [IRCTestClient] = []
        for nick in nicks {
            let client = session.map { IRCTestClient(port: port, session: $0) } ?? IRCTestClient(port: port)
            try await client.register(nick)
            try await client.join(channel)
            clients.append(client)
        }
        if let first = clients.first, let last = nicks.last, clients.count > 1 {
            try await first.waitFor("\(last) joining") {
                $0.command == "JOIN" && $0.source?.hasPrefix(last + "!") == true
            }
        }
        return clients
    }
}
