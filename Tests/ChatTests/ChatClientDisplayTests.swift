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
@testable import StreamTaskDNSSD

/// What the client shows: counts, help, fingerprints, and lines that wait for the connection.
@Suite(.timeLimit(.minutes(1)))
struct ChatClientDisplayTests {
    /// `LIST` says "1 user", not "1 users".
    @Test func oneUserIsSingular() throws {
        var state = ChatClientState(nick: "me", autojoin: [])
        let one = state.handle(try IRCMessage(parsing: ":srv 322 me #quiet 1 :calm here"))
        #expect(one == [.show(ChatDisplayLine(.info, channel: "#quiet", "#quiet (1 user): calm here"))])
        let two = state.handle(try IRCMessage(parsing: ":srv 322 me #busy 2 :"))
        #expect(two == [.show(ChatDisplayLine(.info, channel: "#busy", "#busy (2 users)"))])
    }

    /// `/help`'s descriptions all start in one column, at least two spaces after the longest
    /// command.
    @Test func helpColumnsAlign() {
        let columns = ChatInputCommand.helpText.map { line -> Int? in
            guard let gap = line.range(of: "  ") else { return nil }
            return line.distance(
                from: line.startIndex, to: line[gap.upperBound...].firstIndex { $0 != " " } ?? line.endIndex)
        }
        #expect(!columns.contains(nil), "\(ChatInputCommand.helpText)")
        #expect(Set(columns).count == 1, "\(ChatInputCommand.helpText)")
    }

    /// The library's `SHA-256 AB:CD:…` becomes the `sha256:abcd…` that chat-server prints and
    /// advertises; anything else stays as it was.
    @Test func fingerprintsHaveOneForm() {
        let bytes = (0..<32).map { UInt8($0 * 7 + 3) }
        let colons = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        let message = "the peer's certificate (SHA-256 \(colons)) matches none of the 1 pinned"
        #expect(
            ChatFingerprintFormat.unified(message)
                == "the peer's certificate (\(ChatServiceRecord.fingerprint(bytes))) matches none of the 1 pinned")
        #expect(ChatFingerprintFormat.unified("SHA-256 AB:CD") == "SHA-256 AB:CD")
        #expect(ChatFingerprintFormat.unified("no fingerprint") == "no fingerprint")
    }

    /// The list of servers found names each one's certificate in the same form.
    @Test func aFoundServerShowsItsFingerprint() throws {
        let digest = (0..<32).map { UInt8($0) }
        let service = DNSSDService(name: "Team", type: ChatServiceRecord.serviceType)
        let resolved = DNSSDResolvedService(
            service: service, hostName: "chat.local.", port: 6667, txtRecord: DNSSDTXTRecord(), addresses: [])
        let server = DiscoveredChatServer(
            resolved: resolved, record: ChatServiceRecord(name: "Team", offersSTARTTLS: true, certificateSHA256: digest)
        )
        #expect(
            server.summary
                == "Team at chat.local.:6667 (STARTTLS, certificate \(ChatServiceRecord.fingerprint(digest)))")
    }

    /// A line typed before the client is registered says that it waits, then goes out.
    @Test func aLineTypedWhileDisconnectedSaysItWaits() async throws {
        try await ScriptedIRCServer.with(replies: { line in
            line.hasPrefix("USER ") ? [":srv 001 alice :Welcome"] : []
        }) { server in
            var options = ChatClientOptions(
                target: .host("127.0.0.1", port: server.port), security: .none, nick: "alice", proxy: .direct)
            options.reconnects = false
            let ui = RecordingUserInterface()
            ui.type("/msg bob early words")
            let client = ChatClient(options: options, ui: ui)
            let run = Task { await client.run() }
            #expect(await eventually { server.received.contains("PRIVMSG bob :early words") }, "\(server.received)")
            #expect(
                ui.lines.contains { $0.contains(": this line waits and goes out once the client is") }, "\(ui.lines)")
            ui.type("/quit")
            ui.end()
            _ = await run.value
        }
    }
}
