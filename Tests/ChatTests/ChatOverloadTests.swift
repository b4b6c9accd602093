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
import Testing

/// The chat server under an open-loop load: senders that write as fast as TCP takes their lines
/// offer more than the members read, and the server must slow the senders rather than drop the
/// members.
@Suite(.timeLimit(.minutes(3))) struct ChatOverloadTests {
    /// Three senders each write 1,000 lines at once, with no window and no pacing; every
    /// member (the senders too) reads all the while. A send queue of 8 KiB is far less than
    /// what one read from a sender fans out to each member, so the server must stop reading a
    /// sender while its members catch up: every member stays connected and gets every line of
    /// every other sender, once and in order.
    @Test func anOpenLoopFloodReachesEveryMemberInOrder() async throws {
        try await OwnEventLoop.with { loop in try await flood(on: loop) }
    }

    private func flood(on loop: OwnEventLoop) async throws {
        let session = loop.session()
        try await ChatServerFixture.with(session: session) {
            $0.floodBurst = nil
            $0.maximumClientsPerAddress = nil
            $0.sendQueueLimit = 8 * 1024
        } _: { server, port in
            let senders = ["s0", "s1", "s2"]
            let nicks = senders + (0..<8).map { "r\($0)" }
            let perSender = 1_000
            var clients: [IRCTestClient] = []
            for nick in nicks {
                let client = IRCTestClient(port: port, session: session)
                try await client.register(nick)
                try await client.join("#flood")
                clients.append(client)
            }
            // Everyone is in the channel once the first member has seen the last one join.
            try await clients[0].waitFor("the last join") {
                $0.command == "JOIN" && $0.source?.hasPrefix("\(nicks.last!)!") == true
            }

            let results = try await withThrowingTaskGroup(of: (String, [String: Int]).self) { group in
                for (nick, client) in zip(nicks, clients) {
                    group.addTask {
                        (nick, try await Self.readAll(client, me: nick, from: senders, count: perSender))
                    }
                }
                for (nick, client) in zip(senders, clients) {
                    group.addTask {
                        // The whole flood in a few large writes: each returns once the kernel
                        // took its bytes, which is as fast as the server reads them.
                        let lines = (0..<perSender).map { "PRIVMSG #flood :\($0) \(Self.filler)\r\n" }.joined()
                        let bytes = Array(lines.utf8)
                        for start in stride(from: 0, to: bytes.count, by: 32 * 1024) {
                            try await client.sendRaw(Array(bytes[start..<min(start + 32 * 1024, bytes.count)]))
                        }
                        return (nick, [:])
                    }
                }
                var results: [String: [String: Int]] = [:]
                for try await (nick, counts) in group where !counts.isEmpty { results[nick] = counts }
                return results
            }
            for nick in nicks {
                let expected = Dictionary(uniqueKeysWithValues: senders.filter { $0 != nick }.map { ($0, perSender) })
                #expect(results[nick] == expected, "\(nick) got \(results[nick] ?? [:]) of \(perSender) each")
            }
            #expect(await server.clientCount == nicks.count, "the server dropped a member that was reading")
            for client in clients { await client.close() }
        }
    }

    /// Padding that makes each line about 100 bytes on the wire, as chat lines are.
    static let filler = String(repeating: "x", count: 60)

    /// Reads `client`'s messages until it has `count` lines from each of `senders` (but
    /// itself), checking that each sender's lines come in order; returns how many it got from
    /// each. A connection that ends, an `ERROR`, or a member quitting stops it early: the counts then say so.
    static func readAll(
        _ client: IRCTestClient, me: String, from senders: [String], count: Int
    ) async throws -> [String: Int] {
        var next = Dictionary(uniqueKeysWithValues: senders.filter { $0 != me }.map { ($0, 0) })
        while next.values.contains(where: { $0 < count }) {
            guard let message = try await client.next(timeout: 30), message.command != "ERROR" else { break }
            // A member dropped: another reader sees it quit (and its lines never end).
            if message.command == "QUIT" {
                Issue.record("\(me) saw \(message.sourceNickname ?? "?") quit: \(message.parameters.last ?? "")")
                break
            }
            guard message.command == "PRIVMSG", let nick = message.sourceNickname, let expected = next[nick] else {
                continue
            }
            guard message.parameters.last == "\(expected) \(filler)" else {
                Issue.record("\(me): line \(expected) of \(nick) expected, got \(message.parameters.last ?? "")")
                break
            }
            next[nick] = expected + 1
        }
        return next
    }
}
