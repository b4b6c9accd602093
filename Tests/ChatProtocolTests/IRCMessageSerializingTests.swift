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

/// The serializer, round trips, and fitting a line into 512 bytes.
@Suite struct IRCMessageSerializingTests {
    func code(of message: IRCMessage) -> IRCMessageError.Code? {
        errorCode { try message.serialized() }
    }

    @Test func theColonIsAddedOnlyWhenNeeded() throws {
        #expect(try IRCMessage("PRIVMSG", "#a", "hi").serialized() == "PRIVMSG #a hi")
        #expect(try IRCMessage("PRIVMSG", "#a", "hi there").serialized() == "PRIVMSG #a :hi there")
        #expect(try IRCMessage("PRIVMSG", "#a", ":)").serialized() == "PRIVMSG #a ::)")
        #expect(try IRCMessage("CAP", "*", "LS", "").serialized() == "CAP * LS :")
        #expect(try IRCMessage(source: "s", "PING", "s").serialized() == ":s PING s")
        #expect(try IRCMessage("QUIT").wireBytes() == Array("QUIT\r\n".utf8))
    }

    @Test func tagsAreEscaped() throws {
        let message = IRCMessage(
            tags: [IRCTag(key: "a", value: "x; y\\z\r\n"), IRCTag(key: "b"), IRCTag(key: "c", value: "")],
            command: "TAGMSG", parameters: ["#a"])
        let line = try message.serialized()
        #expect(line == "@a=x\\:\\sy\\\\z\\r\\n;b;c TAGMSG #a")
        let parsed = try IRCMessage(parsing: line)
        #expect(parsed.tags[0] == message.tags[0])
        #expect(
            code(of: IRCMessage(tags: [IRCTag(key: "bad key")], command: "PING", parameters: ["x"])) == .invalidTags)
        #expect(
            code(of: IRCMessage(tags: [IRCTag(key: "k", value: "a\0b")], command: "PING", parameters: ["x"]))
                == .containsNUL)
    }

    @Test func linesThatWouldBeMisreadAreRefused() {
        #expect(code(of: IRCMessage("PRIVMSG", "#a", "hi\r\nQUIT")) == .containsLineBreak)
        #expect(code(of: IRCMessage("PRIVMSG", "#a", "hi\nthere")) == .containsLineBreak)
        #expect(code(of: IRCMessage("PRIVMSG", "#a", "hi\0")) == .containsNUL)
        #expect(code(of: IRCMessage("PRIVMSG", "#a b", "hi")) == .invalidParameter)
        #expect(code(of: IRCMessage("PRIVMSG", "", "hi")) == .invalidParameter)
        #expect(code(of: IRCMessage("PRIVMSG", ":a", "hi")) == .invalidParameter)
        #expect(code(of: IRCMessage("PRIV MSG", "#a")) == .invalidCommand)
        #expect(code(of: IRCMessage("")) == .invalidCommand)
        #expect(code(of: IRCMessage(source: "a b", "PING", "x")) == .invalidSource)
        #expect(code(of: IRCMessage(source: "", "PING", "x")) == .invalidSource)
        #expect(code(of: IRCMessage(source: "a\rb", "PING", "x")) == .containsLineBreak)
        #expect(code(of: IRCMessage(command: "X", parameters: Array(repeating: "p", count: 16))) == .tooManyParameters)
        #expect(code(of: IRCMessage(command: "X", parameters: Array(repeating: "p", count: 15))) == nil)
    }

    @Test func the510ByteLimitIsEnforcedWithAClearError() throws {
        let text = " " + String(repeating: "é", count: 248) + "x"  // 498 bytes; "PRIVMSG #a :" adds 12
        #expect(try IRCMessage("PRIVMSG", "#a", text).serialized().utf8.count == 510)
        do {
            _ = try IRCMessage("PRIVMSG", "#a", text + "x").serialized()
            Issue.record("a 511-byte message serialized")
        } catch let error as IRCMessageError {
            #expect(error.code == .lineTooLong)
            #expect(error.description.contains("at most 510"))
        }
    }

    @Test func fittingCutsTheLastParameterAtACharacterBoundary() throws {
        let source = "alice!alice@127.0.0.1"
        let text = String(repeating: "é", count: 300)  // 600 bytes
        let fitted = IRCMessage(source: source, "PRIVMSG", "#chat", text).fitted()
        let line = try fitted.serialized()
        #expect(line.utf8.count <= 510)
        #expect(line.utf8.count >= 509)
        #expect(fitted.parameters[1].allSatisfy { $0 == "é" })
        let flags = String(repeating: "🇸🇪", count: 200)
        #expect(try IRCMessage(source: source, "PRIVMSG", "#chat", flags).fitted().serialized().utf8.count <= 510)
        let short = IRCMessage("PRIVMSG", "#a", "hi")
        #expect(short.fitted() == short)
        #expect(IRCMessage("QUIT").fitted() == IRCMessage("QUIT"))
    }

    @Test(arguments: [
        ":chat.example 005 alice CASEMAPPING=ascii PREFIX= :are supported by this server",
        "@a=b;c PRIVMSG #chat x",
        "PRIVMSG #chat ::-) and more",
        ":n!u@h NOTICE bob \u{01}VERSION\u{01}",
        "CAP * LS :",
        "JOIN #chat",
    ])
    func canonicalLinesRoundTrip(line: String) throws {
        #expect(try IRCMessage(parsing: line).serialized() == line)
    }

    @Test func messagesRoundTripThroughTheirBytes() throws {
        let messages = [
            IRCMessage(source: "s", "353", "bob", "=", "#chat", "alice bob"),
            IRCMessage("PRIVMSG", "#ünïcödé", "ça va ? 🙂"),
            IRCMessage(command: "CMD", parameters: (1...14).map(String.init) + ["last with spaces"]),
        ]
        for message in messages {
            #expect(try IRCMessage(parsing: message.wireBytes().dropLast(2)) == message)
        }
    }
}
