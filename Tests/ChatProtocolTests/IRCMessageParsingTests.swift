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

/// The parser, on well-formed and hostile lines.
@Suite struct IRCMessageParsingTests {
    func code(of line: [UInt8]) -> IRCMessageError.Code? {
        errorCode { try IRCMessage(parsing: line) }
    }

    @Test func aFullMessageSplitsIntoItsParts() throws {
        let message = try IRCMessage(parsing: ":alice!alice@127.0.0.1 PRIVMSG #chat :hello,  :) there ")
        #expect(message.source == "alice!alice@127.0.0.1")
        #expect(message.sourceNickname == "alice")
        #expect(message.command == "PRIVMSG")
        #expect(message.parameters == ["#chat", "hello,  :) there "])
        #expect(message.tags.isEmpty)
    }

    /// Found by fuzzing (Fuzz/Regressions/irc-message): a combining mark after the `@` fused
    /// with it into one Character, and the nickname ran on into the host.
    @Test func theNicknameEndsAtABangOrAtFollowedByACombiningMark() throws {
        let bytes: [UInt8] = [
            0x3a, 0x61, 0x6c, 0x69, 0x9f, 0x40, 0xcd, 0x8b, 0x9a, 0x65, 0xc8, 0xce, 0x32, 0x37, 0x2e, 0x30,
            0x9f, 0x40, 0xcd, 0xcb, 0x9a, 0x32, 0x37, 0x4e, 0x47, 0xf6, 0x20, 0x70,
        ]
        #expect(try IRCMessage(parsing: bytes).sourceNickname == "ali\u{FFFD}")
        #expect(try IRCMessage(parsing: ":bob!\u{0301}bob@127.0.0.1 PRIVMSG #chat :hi").sourceNickname == "bob")
        #expect(try IRCMessage(parsing: ":bob@\u{0301}host PRIVMSG #chat :hi").sourceNickname == "bob")
    }

    @Test func theTrailingColonIsOptionalForALastWordAndKeepsEmptyParameters() throws {
        #expect(try IRCMessage(parsing: "PRIVMSG #chat hello").parameters == ["#chat", "hello"])
        #expect(try IRCMessage(parsing: "PRIVMSG #chat :hello").parameters == ["#chat", "hello"])
        #expect(try IRCMessage(parsing: "CAP * LS :").parameters == ["*", "LS", ""])
        #expect(try IRCMessage(parsing: "PRIVMSG #chat ::-)").parameters == ["#chat", ":-)"])
        #expect(try IRCMessage(parsing: "QUIT").parameters == [])
    }

    @Test func extraSpacesAreSkippedAndCommandsUpperCased() throws {
        let message = try IRCMessage(parsing: "  :server   privmsg   #a    b  ")
        #expect(message.source == "server")
        #expect(message.command == "PRIVMSG")
        #expect(message.parameters == ["#a", "b"])
    }

    @Test func numericsAreThreeDigits() throws {
        #expect(try IRCMessage(parsing: ":s 001 alice :hi").numeric == .welcome)
        #expect(code(of: Array("0001 x".utf8)) == .invalidCommand)
        #expect(code(of: Array("12 x".utf8)) == .invalidCommand)
        #expect(code(of: Array("PRIV-MSG x".utf8)) == .invalidCommand)
        #expect(code(of: Array(":source".utf8)) == .missingCommand)
        #expect(code(of: Array(": PING".utf8)) == .invalidSource)
    }

    @Test func tagsAreParsedAndUnescaped() throws {
        let message = try IRCMessage(
            parsing: "@time=2026-11-21T09:00:00Z;+example.com/x=a\\sb\\:c\\\\d;flag :n!u@h PRIVMSG #a :hi")
        #expect(
            message.tags == [
                IRCTag(key: "time", value: "2026-11-21T09:00:00Z"),
                IRCTag(key: "+example.com/x", value: "a b;c\\d"),
                IRCTag(key: "flag"),
            ])
        #expect(message.command == "PRIVMSG")
        #expect(code(of: Array("@ PING x".utf8)) == .invalidTags)
        // The tag section ends at the first space.
        #expect(code(of: Array("@bad key=1 PING x".utf8)) == .invalidCommand)
        #expect(code(of: Array("@b!d=1 PING x".utf8)) == .invalidTags)
        #expect(code(of: Array("@a=1".utf8)) == .missingCommand)
    }

    /// Found by fuzzing (Fuzz/Regressions/irc-tag): the value's combining mark fused with the
    /// `=` into one Character, so the key ran on into the value and the line was refused.
    @Test func aTagValueMayStartWithACombiningMark() throws {
        let value = "\u{0366}\u{FFFD}\u{FFFD}"  // what the bytes CD A6 DA DA decode to
        let message = try IRCMessage(parsing: "@+example.com/value=\(value) TAGMSG #chat")
        #expect(message.tags == [IRCTag(key: "+example.com/value", value: value)])
        #expect(try IRCMessage(parsing: "@k=\u{0301}x PING y").tags == [IRCTag(key: "k", value: "\u{0301}x")])
    }

    @Test(arguments: ["", " ", "          "])
    func emptyLinesAreReportedAsEmpty(line: String) {
        #expect(code(of: Array(line.utf8)) == .empty)
    }

    @Test func nulCRAndLFAreRefused() {
        #expect(code(of: Array("PRIVMSG #a :hi".utf8) + [0] + Array("there".utf8)) == .containsNUL)
        #expect(code(of: [0]) == .containsNUL)
        #expect(code(of: Array("PRIVMSG #a :hi\r\n".utf8)) == .containsLineBreak)
        #expect(code(of: Array("PRIVMSG #a :hi\rthere".utf8)) == .containsLineBreak)
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        let line = Array("PRIVMSG #a :caf".utf8) + [0xC3] + Array(" ok ".utf8) + [0xFF, 0xFE, 0x80]
        let message = try IRCMessage(parsing: line)
        #expect(message.parameters == ["#a", "caf\u{FFFD} ok \u{FFFD}\u{FFFD}\u{FFFD}"])
        let badSource = try IRCMessage(parsing: [UInt8(ascii: ":"), 0xFF, UInt8(ascii: " ")] + Array("PING x".utf8))
        #expect(badSource.source == "\u{FFFD}")
    }

    @Test func the510ByteLimitIsExact() throws {
        let prefix = "PRIVMSG #a :"
        let fits = prefix + String(repeating: "x", count: 510 - prefix.utf8.count)
        #expect(try IRCMessage(parsing: fits).parameters[1].utf8.count == 498)
        #expect(code(of: Array((fits + "x").utf8)) == .lineTooLong)
        #expect(code(of: Array(repeating: UInt8(ascii: "a"), count: 10_000)) == .lineTooLong)
        // A client may be lenient with a server that sends longer lines.
        #expect(try IRCMessage(parsing: fits + "xx", maxLength: 4096).parameters[1].utf8.count == 500)
        // Tags do not count towards the 510, but have their own limit.
        let tags = "@k=" + String(repeating: "v", count: 1000) + " "
        #expect(try IRCMessage(parsing: tags + fits).tags.first?.value?.count == 1000)
        #expect(code(of: Array(("@k=" + String(repeating: "v", count: 9000) + " PING x").utf8)) == .tagsTooLong)
    }

    @Test func afterFourteenParametersTheRestOfTheLineIsTheFifteenth() throws {
        let fifteen = "CMD " + (1...14).map(String.init).joined(separator: " ") + " :last one"
        #expect(try IRCMessage(parsing: fifteen).parameters.count == 15)
        #expect(try IRCMessage(parsing: fifteen).parameters.last == "last one")
        let sixteen = try IRCMessage(parsing: "CMD " + (1...16).map(String.init).joined(separator: " "))
        #expect(sixteen.parameters.count == 15)
        #expect(sixteen.parameters.last == "15 16", "RFC 2812: the `:` of the fifteenth is optional")
        let many = try IRCMessage(parsing: "ISON" + (1...40).map { " n\($0)" }.joined())
        #expect(many.parameters.count == 15)
        #expect(many.parameters.prefix(14) == ArraySlice((1...14).map { "n\($0)" }))
        #expect(many.parameters.last == (15...40).map { "n\($0)" }.joined(separator: " "))
        let colon = "CMD " + (1...14).map(String.init).joined(separator: " ") + " ::last one"
        #expect(try IRCMessage(parsing: colon).parameters.last == ":last one")
    }

    /// Every byte value at every position of a short line: the parser answers, never traps.
    @Test func arbitraryBytesNeverTrap() {
        let base = Array(":n!u@h PRIVMSG #a :hi".utf8)
        var parsed = 0
        for position in base.indices {
            for byte in UInt8.min...UInt8.max {
                var line = base
                line[position] = byte
                if (try? IRCMessage(parsing: line)) != nil { parsed += 1 }
            }
        }
        #expect(parsed > 0)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let line = (0..<Int.random(in: 0...600, using: &generator)).map { _ in
                [
                    UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: ";"), UInt8(ascii: "="),
                    UInt8(ascii: "\\"), 0x80, 0xFF, UInt8(ascii: "a"), UInt8(ascii: "1"),
                ].randomElement(using: &generator)!
            }
            if let message = try? IRCMessage(parsing: line) {
                #expect(message.parameters.count <= IRCLimits.parameterCount)
            }
        }
    }

    @Test func errorsSayWhatWasWrong() {
        do {
            _ = try IRCMessage(parsing: Array(repeating: UInt8(ascii: "a"), count: 600))
            Issue.record("an over-long line parsed")
        } catch {
            #expect("\(error)".contains("600 bytes"))
            #expect("\(error)".contains("at most 510"))
        }
    }
}
