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

@testable import ChatClientCore

/// Long lines typed at the client arrive whole, in several messages, and the sender's echo is
/// what was sent.
@Suite(.timeLimit(.minutes(2)))
struct ChatMessageSplitterTests {
    /// 2,250 characters of words, some of them two bytes long.
    static let longLine = (1...400).map { $0 % 7 == 0 ? "éléphant\($0)" : "word\($0)" }.joined(separator: " ").prefix(
        2250
    )
    .trimmingCharacters(in: .whitespaces)

    /// Each piece survives the longest prefix a server may add, and the pieces put back
    /// together with spaces are the line.
    @Test func piecesFitTheRelayedLineAndKeepEveryWord() {
        let text = String(Self.longLine)
        let pieces = ChatMessageSplitter.split(
            IRCMessage(command: "PRIVMSG", parameters: ["#chat", text]), nick: "alice")
        #expect(pieces.count > 4)
        let longestPrefix =
            "alice!~" + String(repeating: "u", count: IRCLimits.userNameLength) + "@"
            + String(repeating: "h", count: 63)
        for piece in pieces {
            let relayed = IRCMessage(source: longestPrefix, command: "PRIVMSG", parameters: piece.parameters)
            #expect(relayed.fitted() == relayed, "cut when relayed: \(piece.parameters[1])")
            #expect(!piece.parameters[1].hasPrefix(" ") && !piece.parameters[1].hasSuffix(" "))
        }
        #expect(pieces.map { $0.parameters[1] }.joined(separator: " ") == text)
    }

    /// A word longer than a piece is cut between characters; an action stays an action in
    /// every piece; a short line and other commands go as they are.
    @Test func longWordsActionsAndShortLines() {
        let word = String(repeating: "é", count: 600)
        let pieces = ChatMessageSplitter.split(
            IRCMessage(command: "PRIVMSG", parameters: ["bob", word]), nick: "alice")
        #expect(pieces.count == 3)
        #expect(pieces.map { $0.parameters[1] }.joined() == word)

        let action = ChatMessageSplitter.split(
            IRCMessage(command: "PRIVMSG", parameters: ["#chat", "\u{1}ACTION \(Self.longLine)\u{1}"]), nick: "alice")
        #expect(action.count > 4)
        #expect(action.allSatisfy { $0.parameters[1].hasPrefix("\u{1}ACTION ") && $0.parameters[1].hasSuffix("\u{1}") })

        let short = IRCMessage(command: "PRIVMSG", parameters: ["#chat", "hello"])
        #expect(ChatMessageSplitter.split(short, nick: "alice") == [short])
        let join = IRCMessage(command: "JOIN", parameters: ["#chat"])
        #expect(ChatMessageSplitter.split(join, nick: "alice") == [join])
    }

    /// Through our server: the other user receives every character of a 2,250-character line,
    /// and the sender's echo shows exactly the pieces the other user received.
    @Test func aLongLineReachesTheOtherUserWholeAndTheEchoMatches() async throws {
        try await ChatServerFixture.with { _, port in
            let reader = IRCTestClient(port: port)
            try await reader.register("reader")
            try await reader.join("#long")
            var options = ChatClientOptions(
                target: .host("127.0.0.1", port: port), security: .none, nick: "writer", channels: ["#long"],
                proxy: .direct)
            options.reconnects = false
            let ui = RecordingUserInterface()
            let client = ChatClient(options: options, ui: ui)
            let run = Task { await client.run() }
            _ = try await reader.waitFor("writer joining") {
                $0.command == "JOIN" && $0.source?.hasPrefix("writer!") == true
            }
            ui.type(String(Self.longLine))
            var received: [String] = []
            while received.joined(separator: " ").count < Self.longLine.count {
                let message = try await reader.waitFor(command: "PRIVMSG")
                received.append(message.parameters[1])
            }
            #expect(received.joined(separator: " ") == String(Self.longLine))
            // Each shown line is a time, `<writer>` and the text.
            let echoes = {
                ui.lines.compactMap { line in line.range(of: " <writer> ").map { String(line[$0.upperBound...]) } }
            }
            #expect(await eventually { echoes().count >= received.count }, "\(ui.lines)")
            #expect(echoes() == received)
            ui.type("/quit")
            ui.end()
            _ = await run.value
            await reader.close()
        }
    }

    /// A long paste goes out paced, so a server with flood limits neither drops the sender nor
    /// loses a piece. (Here: 3 lines at once, 10 a second, 32 waiting at most; the client sends
    /// 2 at once, then 5 a second. The paste is some 55 pieces: sent at once they would pass
    /// the 32 waiting and the sender would be dropped. The 32 leave room for a loaded machine,
    /// where the server may read 6 seconds' paced lines together: under the thread sanitizer,
    /// beside the whole suite, it was seen reading more than 8 together, and then more than 16.)
    @Test func aLongPasteIsPacedWithinTheFloodLimits() async throws {
        let paste = (1...4000).map { "w\($0)" }.joined(separator: " ")
        let received = try await Self.pasted([paste]) { $0.joined(separator: " ").count >= paste.count }
        #expect(received.count > 35, "the paste is more pieces than the burst and the queue together")
        #expect(received.joined(separator: " ") == paste)
    }

    /// Many short lines pasted at once are paced as one long message's pieces are: under the
    /// same flood limits, 60 lines (more than the burst and the server's queue together) all
    /// arrive, in order, and the sender is not dropped. Before, each line's first pieces went
    /// at once, so a paste of short lines flooded the server after its first few lines.
    @Test func aPasteOfManyShortLinesIsPacedAcrossLines() async throws {
        let lines = (1...60).map { "paste line \($0)" }
        let received = try await Self.pasted(lines) { $0.count >= lines.count }
        #expect(received == lines)
    }

    /// Types `lines` into a client joined to `#paste` on a server with tight flood limits (3
    /// lines at once, 10 a second, 32 waiting), the client pacing at 2 at once then 5 a second;
    /// returns the texts a reader in the channel got, once `enough` says so, or what had come
    /// when the sender was dropped or a piece did not come.
    static func pasted(_ lines: [String], until enough: ([String]) -> Bool) async throws -> [String] {
        try await ChatServerFixture.with({
            $0.floodBurst = 3
            $0.floodLinesPerSecond = 10
            $0.floodQueuedLines = 32
        }) { _, port in
            let reader = IRCTestClient(port: port)
            try await reader.register("reader")
            try await reader.join("#paste")
            var options = ChatClientOptions(
                target: .host("127.0.0.1", port: port), security: .none, nick: "paster", channels: ["#paste"],
                proxy: .direct)
            options.reconnects = false
            options.pacedAfterLines = 2
            options.pacedLinesPerSecond = 5
            let ui = RecordingUserInterface()
            let run = Task { await ChatClient(options: options, ui: ui).run() }
            _ = try await reader.waitFor("paster joining") {
                $0.command == "JOIN" && $0.source?.hasPrefix("paster!") == true
            }
            for line in lines { ui.type(line) }
            var received: [String] = []
            while !enough(received) {
                let message: IRCMessage
                do {
                    // 30 s, not the usual 10: at the start of the whole suite on two cores,
                    // a rehearsal once saw no piece for 10 s (pacing is timers on a busy pool).
                    message = try await reader.waitFor("the next piece", timeout: 30) {
                        $0.command == "PRIVMSG" || $0.command == "QUIT"
                    }
                } catch {
                    // What the sender's screen said tells a stalled sender from a lost piece.
                    Issue.record("after \(received.count) pieces: \(error); the sender showed: \(ui.lines.suffix(5))")
                    break
                }
                guard message.command == "PRIVMSG" else {
                    Issue.record("the sender was dropped after \(received.count) pieces: \(message)")
                    break
                }
                received.append(message.parameters[1])
            }
            ui.type("/quit")
            ui.end()
            _ = await run.value
            await reader.close()
            return received
        }
    }
}
