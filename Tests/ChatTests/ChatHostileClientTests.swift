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

/// Clients that try to keep others out (Protocol.md, section 5): many connections from one
/// host, connections that never register, registrations trickled or stalled in STARTTLS.
@Suite(.timeLimit(.minutes(2)))
struct ChatHostileClientTests {
    /// 300 idle connections from 127.0.0.2, three times `--max-clients`, and a client from
    /// 127.0.0.1 still registers: with the per-address limit (the default) the host gets 5;
    /// without it, connections still registering have only half the places, and the oldest
    /// gives way to the newest.
    @Test(arguments: [ChatServerConfiguration.defaultMaximumClientsPerAddress, nil])
    func threeHundredIdleConnectionsFromOneHostDoNotKeepAnotherOut(perAddress: Int?) async throws {
        try await ChatServerFixture.with({ $0.maximumClientsPerAddress = perAddress }) { server, port in
            let attackers = await offCooperativePool {
                (0..<300).map { _ in try? SourceBoundSocket(from: "127.0.0.2", to: "127.0.0.1", port: port) }
            }
            defer { for attacker in attackers { attacker?.close() } }
            #expect(attackers.allSatisfy { $0 != nil }, "every attacker connected")
            #expect(await handled(300, by: server), "the server saw all 300")
            let held = await server.clientCount
            #expect(held <= (perAddress ?? 50), "attackers hold \(held) places")

            let client = IRCTestClient(port: port)
            try await client.register("real")
            await client.close()
        }
    }

    @Test func fromOneAddressTheSixthConnectionIsRefusedWithTheLimitsError() async throws {
        try await ChatServerFixture.with { server, port in
            var clients: [IRCTestClient] = []
            for number in 1...5 {
                let client = IRCTestClient(port: port)
                try await client.register("user\(number)")
                clients.append(client)
            }
            let sixth = IRCTestClient(port: port)
            let messages = try await sixth.readToEnd()
            #expect(messages.map(\.command) == ["ERROR"])
            #expect(
                messages.first?.parameters.last == "Closing Link: 127.0.0.1 (Too many connections from your address)")
            #expect(await server.clientCount == 5)
            // The limit counts open connections: one closes, and the address may connect again.
            try await clients[0].send("QUIT")
            _ = try await clients[0].readToEnd()
            let again = IRCTestClient(port: port)
            try await again.register("again")
            for client in clients + [again] { await client.close() }
        }
    }

    /// A slowloris that sends `NICK x` and then nothing, and one that trickles lines a byte at
    /// a time, are dropped at the registration deadline, while a client from another address
    /// registers meanwhile. (The deadline, 3 s, is the other client's too: under the thread
    /// sanitizer on a busy machine, registering has taken more than 1 s.)
    @Test func slowRegistrationsAreDroppedAtTheDeadlineWhileOthersRegister() async throws {
        try await ChatServerFixture.with({ $0.registrationTimeout = .seconds(3) }) { server, port in
            let silent = try await SourceBoundSocket.connected(from: "127.0.0.2", port: port)
            try silent.send("NICK x\r\n")
            let trickler = try await SourceBoundSocket.connected(from: "127.0.0.3", port: port)
            let trickled = Task {
                await offCooperativePool { () -> Bool in
                    // One byte every 20 ms, complete lines among them, until the server drops
                    // the connection (a send that fails found it reset) or 60 s pass: the
                    // deadline comes long before, however late a busy machine runs it.
                    let giveUp = Date().addingTimeInterval(60)
                    var line = 0
                    while Date() < giveUp {
                        for byte in "PING \(line)\r\n".utf8 {
                            guard (try? trickler.send(String(decoding: [byte], as: UTF8.self))) != nil else {
                                return true
                            }
                            if trickler.readToEnd(seconds: 0.02).ended { return true }
                        }
                        line += 1
                    }
                    return false
                }
            }
            let client = IRCTestClient(port: port)
            try await client.register("patient")

            let (text, ended) = await offCooperativePool { silent.readToEnd(seconds: 20) }
            #expect(ended)
            #expect(text.contains("ERROR :Closing Link: 127.0.0.2 (Registration timed out)"))
            #expect(await trickled.value, "the trickler was dropped")
            #expect(await clientCount(of: server, settlesAt: 1))
            await client.close()
        }
    }

    /// A client that asks for STARTTLS and then never starts the handshake is dropped at the
    /// registration deadline (3 s here), long before the 30 s a handshake may take.
    @Test func aStalledSTARTTLSHandshakeRunsIntoTheRegistrationDeadline() async throws {
        let tls = try ChatServerFixture.makeTLS()
        try await ChatServerFixture.with(tls: tls, { $0.registrationTimeout = .seconds(3) }) { server, port in
            let staller = try await SourceBoundSocket.connected(from: "127.0.0.2", port: port)
            try staller.send("NICK stall\r\nSTARTTLS\r\n")
            let client = IRCTestClient(port: port)
            try await client.register("other")
            let (text, ended) = await offCooperativePool { staller.readToEnd(seconds: 20) }
            #expect(text.contains(" 670 "), "the server agreed to STARTTLS: \(text)")
            #expect(ended, "dropped at the deadline, not after the handshake's 30 s")
            #expect(await clientCount(of: server, settlesAt: 1))
            await client.close()
        }
    }

    /// Whether the server's count of clients comes to `expected` (within 2 s): it forgets a
    /// dropped connection just after the peer sees it closed.
    private func clientCount(of server: ChatServer, settlesAt expected: Int) async -> Bool {
        for _ in 0..<100 {
            if await server.clientCount == expected { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await server.clientCount == expected
    }

    /// Waits (at most 10 s) until the server has admitted or refused `count` connections.
    private func handled(_ count: Int, by server: ChatServer) async -> Bool {
        for _ in 0..<1000 {
            if await server.connectionsHandled >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
