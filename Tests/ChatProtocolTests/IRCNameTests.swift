//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import ChatProtocol

/// Case mapping, name rules, ISUPPORT tokens and the DNS-SD record.
@Suite struct IRCNameTests {
    @Test func asciiFoldsOnlyLetters() {
        let ascii = IRCCaseMapping.ascii
        #expect(ascii.folded("Alice[]\\^~É") == "alice[]\\^~É")
        #expect(ascii.equals("#Chat", "#chAT"))
        #expect(!ascii.equals("a[", "A{"))
        #expect(!ascii.equals("abc", "abcd"))
        #expect(ascii.equals("Ünï", "Ünï"))
        #expect(!ascii.equals("Ü", "ü"), "non-ASCII letters do not fold")
    }

    @Test func rfc1459AlsoFoldsBracketsBackslashAndCaret() {
        let rfc = IRCCaseMapping.rfc1459
        #expect(rfc.folded("Nick[A]\\^") == "nick{a}|~")
        #expect(rfc.equals("[x]", "{X}"))
        #expect(!rfc.equals("`", "@"))
    }

    @Test func theISupportValuePicksTheMapping() {
        #expect(IRCCaseMapping(isupportValue: "ascii") == .ascii)
        #expect(IRCCaseMapping(isupportValue: "RFC1459") == .rfc1459)
        #expect(IRCCaseMapping(isupportValue: nil) == .rfc1459)
        #expect(IRCCaseMapping(isupportValue: "rfc7613") == .ascii)
    }

    @Test(arguments: ["alice", "A", "[bot]", "`x`", "_under-score9", "{|}^\\", String(repeating: "n", count: 30)])
    func validNicknames(nickname: String) {
        #expect(IRCName.isValidNickname(nickname))
    }

    @Test(arguments: [
        "", "9lives", "-dash", "with space", "a,b", "a!b", "a@b", "#chan", ":colon", "ünï", "a*",
        String(repeating: "n", count: 31), "a\0b",
    ])
    func invalidNicknames(nickname: String) {
        #expect(!IRCName.isValidNickname(nickname))
    }

    @Test(arguments: ["#chat", "#a", "#ünïcödé", "#with.dots-and_more!", "#" + String(repeating: "c", count: 49)])
    func validChannelNames(channel: String) {
        #expect(IRCName.isValidChannelName(channel))
    }

    @Test(arguments: [
        "", "#", "chat", "&local", "#a b", "#a,b", "#a:b", "#bell\u{07}", "#nul\0", "#cr\r",
        "#" + String(repeating: "c", count: 50),
    ])
    func invalidChannelNames(channel: String) {
        #expect(!IRCName.isValidChannelName(channel))
    }

    @Test func userNamesAreSanitized() {
        #expect(IRCName.sanitizedUserName("alice", fallback: "nick") == "alice")
        #expect(IRCName.sanitizedUserName("~a l!i.c_e-", fallback: "nick") == "ali.c_e-")
        #expect(IRCName.sanitizedUserName("ünï", fallback: "nick") == "n")
        #expect(IRCName.sanitizedUserName("!!!", fallback: "nick") == "nick")
        #expect(IRCName.sanitizedUserName(String(repeating: "u", count: 40), fallback: "n").count == 18)
        #expect(IRCName.displayHost("::1") == "0::1")
        #expect(IRCName.displayHost("127.0.0.1") == "127.0.0.1")
        #expect(IRCName.isChannel("#a") && !IRCName.isChannel("alice"))
    }

    @Test func isupportTokensEscapeTheNetworkNameAndFitOneLine() throws {
        let tokens = IRCISupport.tokens(network: "Team Chat=\\1")
        #expect(tokens.contains("NETWORK=Team\\x20Chat\\x3D\\x5C1"))
        #expect(tokens.count <= 13)
        let line = IRCReplyBuilder(server: "chat.example", client: String(repeating: "n", count: 30)).isupport(tokens)
        #expect(try line.serialized().utf8.count <= 510)
    }

    @Test func theServiceRecordRoundTripsAndRefusesBadFingerprints() throws {
        let digest = (0..<32).map { UInt8($0 * 7) }
        let record = ChatServiceRecord(name: "Team Chat", offersSTARTTLS: true, certificateSHA256: digest)
        let txt = record.txtRecord
        #expect(txt["txtvers"] == "1")
        #expect(txt["tls"] == "starttls")
        #expect(txt["fp"] == "sha256:00070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9")
        #expect(ChatServiceRecord(txtRecord: txt) == record)
        #expect(
            ChatServiceRecord(txtRecord: [
                "TXTVERS": "1", "TLS": "starttls",
                "FP": txt["fp"]!.uppercased().replacingOccurrences(of: "SHA256", with: "sha256"),
            ])?.certificateSHA256 == digest)
        #expect(ChatServiceRecord(txtRecord: ["name": "x"]) == nil, "no txtvers")
        #expect(ChatServiceRecord(txtRecord: ["txtvers": "2"]) == nil)
        let plain = ChatServiceRecord(name: "x", offersSTARTTLS: false, certificateSHA256: digest)
        #expect(plain.txtRecord["fp"] == nil)
        #expect(plain.txtRecord["tls"] == "none")
        for bad in [
            "sha1:" + String(repeating: "a", count: 64), "sha256:" + String(repeating: "a", count: 63),
            "sha256:" + String(repeating: "g", count: 64), "sha256:+f" + String(repeating: "a", count: 62), "sha256:",
        ] {
            #expect(ChatServiceRecord.parseFingerprint(bad) == nil, "\(bad)")
        }
    }
}
