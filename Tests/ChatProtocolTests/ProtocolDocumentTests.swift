//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import ChatProtocol

/// The examples and tables of Protocol.md against the code.
@Suite struct ProtocolDocumentTests {
    let document: ProtocolDocument

    init() throws {
        document = try ProtocolDocument()
    }

    @Test func theDocumentHasExamplesFromBothSides() {
        #expect(document.examples.filter(\.fromClient).count >= 20)
        #expect(document.examples.filter { !$0.fromClient }.count >= 40)
    }

    /// Server lines are ours, so they must be canonical (a `:` only where needed); client lines
    /// are as real clients write them, so they must round-trip to the same message.
    @Test func everyExampleLineParsesAndSerializesBack() throws {
        for example in document.examples {
            let message: IRCMessage
            do {
                message = try IRCMessage(parsing: example.line)
            } catch {
                Issue.record("\(example) does not parse: \(error)")
                continue
            }
            let serialized = try message.serialized()
            if example.fromClient {
                #expect(try IRCMessage(parsing: serialized) == message, "\(example)")
            } else {
                #expect(serialized == example.line, "\(example)")
            }
            #expect(example.line.utf8.count <= IRCLimits.messageLength, "\(example)")
        }
    }

    @Test func clientsSendNoSourceAndTheServerAlwaysDoesExceptForERROR() throws {
        for example in document.examples {
            let message = try IRCMessage(parsing: example.line)
            if example.fromClient {
                #expect(message.source == nil, "\(example)")
            } else {
                #expect((message.source == nil) == (message.command == "ERROR"), "\(example)")
            }
        }
    }

    @Test func everyNumericInTheExamplesIsInTheTableAndAddressesItsClient() throws {
        for example in document.examples where !example.fromClient {
            let message = try IRCMessage(parsing: example.line)
            guard message.command.first?.isNumber == true else { continue }
            #expect(message.numeric != nil, "\(example): numeric not in IRCNumeric.all")
            #expect(message.source == "chat.example", "\(example)")
            #expect(["alice", "bob", "*"].contains(message.parameters.first), "\(example)")
            if let text = message.numeric?.text {
                #expect(message.parameters.last == text, "\(example)")
            }
        }
    }

    @Test func theNumericTableListsExactlyTheNumericsOfTheCode() {
        let rows = document.table(under: "Numeric replies")
        #expect(rows.map { $0[0] } == IRCNumeric.all.map(\.code))
        #expect(rows.map { $0[1] } == IRCNumeric.all.map(\.name))
        for (row, numeric) in zip(rows, IRCNumeric.all) {
            if let text = numeric.text {
                #expect(row[2].hasSuffix(":" + text), "\(numeric): the table says \(row[2])")
            }
        }
    }

    @Test func theISupportTableListsTheTokensOfTheCode() {
        let rows = document.table(under: "ISUPPORT")
        let tokens = IRCISupport.tokens(network: "<name>")
        #expect(rows.map { $0[0] } == tokens)
    }

    @Test func theTXTRecordTableListsTheKeysOfTheCode() {
        let rows = document.table(under: "DNS-SD")
        let record = ChatServiceRecord(
            name: "Team Chat", offersSTARTTLS: true, certificateSHA256: Array(repeating: 0xAB, count: 32))
        #expect(Set(rows.map { $0[0] }) == Set(record.txtRecord.keys))
        #expect(document.lines.contains { $0.contains(ChatServiceRecord.serviceType) })
        let example = document.lines.first { $0.contains("`fp=sha256:") }?
            .split(separator: "`").first { $0.hasPrefix("fp=") }?.dropFirst(3)
        #expect(example.flatMap { ChatServiceRecord.parseFingerprint(String($0)) }?.count == 32)
    }

    /// The builders produce the server lines of the example session, byte for byte.
    @Test func theReplyBuildersProduceTheExampleLines() throws {
        let serverLines = Set(document.examples.filter { !$0.fromClient }.map(\.line))
        let alice = IRCReplyBuilder(server: "chat.example", client: "alice")
        let bob = IRCReplyBuilder(server: "chat.example", client: "bob")
        let unregistered = IRCReplyBuilder(server: "chat.example", client: nil)
        var built: [IRCMessage] = [
            unregistered.cap("LS", "tls"),
            unregistered.reply(.startTLS),
            alice.welcome(network: "Team Chat", user: "alice", host: "127.0.0.1"),
            alice.yourHost(version: "streamtaskkit-chat-1"),
            alice.created("2026-11-21 09:00:00 UTC"),
            alice.myInfo(version: "streamtaskkit-chat-1"),
            alice.isupport(IRCISupport.tokens(network: "Team Chat")),
            alice.motdStart(),
            alice.motd("Welcome. Be kind."),
            alice.reply(.endOfMotd),
            alice.reply(.endOfNames, "#chat"),
            alice.reply(.channelModeIs, "#chat", "+n"),
            alice.reply(.creationTime, "#chat", "1763715600"),
            unregistered.reply(.nicknameInUse, "Alice"),
            bob.reply(.topic, "#Chat", "Tea at four"),
            bob.reply(.topicWhoTime, "#Chat", "alice", "1763715660"),
            bob.reply(.noSuchNick, "carol"),
            bob.whoReply(
                channel: "#chat", user: "alice", host: "127.0.0.1", nickname: "alice", realName: "Alice Liddell"),
            bob.reply(.endOfWho, "#chat"),
            alice.reply(.listStart, "Channel"),
            alice.list(channel: "#chat", memberCount: 2, topic: "Tea at four"),
            alice.reply(.listEnd),
            alice.ping(),
            IRCReplyBuilder.closingLink(host: "127.0.0.1", reason: "Quit: bye"),
            bob.reply(.noTextToSend),
            bob.reply(.noSuchChannel, "chat"),
            bob.reply(.unknownCommand, "FROB"),
            bob.startTLSFailed(reason: "already registered"),
            bob.reply(.channelOperatorPrivilegesNeeded, "#chat"),
            bob.cap("LS", "tls"),
            bob.cap("NAK", "tls multi-prefix"),
            bob.pong("1763716000"),
            bob.reply(.inputTooLong),
            bob.reply(.cannotSendToChannel, "#elsewhere"),
            IRCReplyBuilder.closingLink(host: "127.0.0.1", reason: "Excess Flood"),
            alice.reply(.nowAway),
            alice.reply(.unaway),
            bob.userHost([
                IRCReplyBuilder.userHostEntry(nickname: "alice", user: "alice", host: "127.0.0.1", isAway: true),
                IRCReplyBuilder.userHostEntry(nickname: "bob", user: "bob", host: "127.0.0.1", isAway: false),
            ]),
            bob.isOn(["alice"]),
            bob.away(nickname: "alice", text: "at the tea shop"),
            bob.whoisUser(nickname: "alice", user: "alice", host: "127.0.0.1", realName: "Alice Liddell"),
            bob.whoisServer(nickname: "alice", info: "Team Chat"),
            bob.reply(.whoisSecure, "alice"),
            bob.whoisIdle(nickname: "alice", seconds: 100, signOnTime: 1_763_715_600),
            bob.reply(.endOfWhois, echoing: "alice"),
            bob.reply(.endOfWhois, echoing: "carol"),
        ]
        built += bob.whoisChannels(nickname: "alice", channels: ["#chat"])
        built += alice.names(channel: "#chat", nicknames: ["alice"])
        built += bob.names(channel: "#Chat", nicknames: ["alice", "bob"])
        for message in built {
            let line = try message.serialized()
            #expect(serverLines.contains(line), "not in Protocol.md's examples: \(line)")
        }
    }
}
