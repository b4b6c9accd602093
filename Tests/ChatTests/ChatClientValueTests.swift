import ChatProtocol
import Testing

@testable import ChatClientCore

/// The client's typed commands, session state, line editor and display, as plain values.
@Suite struct ChatClientValueTests {
    @Test func typedLinesBecomeMessages() {
        func parse(_ line: String, in channel: String? = "#chat") -> ChatInputCommand {
            ChatInputCommand(parsing: line, currentChannel: channel)
        }
        #expect(parse("hello there") == .send([IRCMessage(command: "PRIVMSG", parameters: ["#chat", "hello there"])]))
        #expect(parse("//slash text") == .send([IRCMessage(command: "PRIVMSG", parameters: ["#chat", "/slash text"])]))
        #expect(parse("/join rust,#swift") == .send([IRCMessage(command: "JOIN", parameters: ["#rust,#swift"])]))
        #expect(parse("/part") == .send([IRCMessage(command: "PART", parameters: ["#chat"])]))
        #expect(parse("/part #other gone for tea") == .send([IRCMessage(command: "PART", parameters: ["#other", "gone for tea"])]))
        #expect(parse("/msg bob  hi  there") == .send([IRCMessage(command: "PRIVMSG", parameters: ["bob", "hi  there"])]))
        #expect(parse("/me waves") == .send([IRCMessage(command: "PRIVMSG", parameters: ["#chat", "\u{1}ACTION waves\u{1}"])]))
        #expect(parse("/nick new") == .send([IRCMessage(command: "NICK", parameters: ["new"])]))
        #expect(parse("/names") == .send([IRCMessage(command: "NAMES", parameters: ["#chat"])]))
        #expect(parse("/list") == .send([IRCMessage(command: "LIST")]))
        #expect(parse("/quit see you") == .quit("see you"))
        #expect(parse("/servers") == .listServers)
        #expect(parse("   ") == .none)
        if case .error = parse("hello", in: nil) {} else { Issue.record("plain text without a channel must be an error") }
        if case .error = parse("/frobnicate") {} else { Issue.record("an unknown command must be an error") }
        if case .error = parse("/msg bob") {} else { Issue.record("/msg without text must be an error") }
    }

    @Test func theSessionTracksNickChannelsAndAnswersPings() throws {
        var state = ChatClientState(nick: "alice", autojoin: ["#chat"])
        func handle(_ line: String) throws -> [ChatClientState.Effect] { state.handle(try IRCMessage(parsing: line)) }

        #expect(try handle("PING :abc") == [.send(IRCMessage(command: "PONG", parameters: ["abc"]))])
        #expect(try handle(":srv CAP * LS :multi-prefix tls sasl=PLAIN") == [.capabilities(offersTLS: true)])
        #expect(try handle(":srv CAP * LS :multi-prefix") == [.capabilities(offersTLS: false)])
        #expect(try handle(":srv 421 * CAP :Unknown command") == [.capabilities(offersTLS: false)])
        let retry = try handle(":srv 433 * alice :Nickname is already in use")
        #expect(retry.last == .send(IRCMessage(command: "NICK", parameters: ["alice_"])))
        let welcome = try handle(":srv 001 alice_ :Welcome")
        #expect(welcome.contains(.registered))
        #expect(welcome.last == .send(IRCMessage(command: "JOIN", parameters: ["#chat"])))
        #expect(state.nick == "alice_")
        _ = try handle(":srv 005 alice_ CASEMAPPING=ascii NETWORK=Team\\x20Chat :are supported")
        #expect(state.caseMapping == .ascii)
        #expect(state.networkName == "Team Chat")
        _ = try handle(":alice_!a@h JOIN #Chat")
        _ = try handle(":alice_!a@h JOIN :#other")
        #expect(state.channels == ["#Chat", "#other"])
        #expect(state.currentChannel == "#other")
        _ = try handle(":alice_!a@h PART #other :bye")
        #expect(state.currentChannel == "#Chat")
        _ = try handle(":ALICE_!a@h NICK alicia")
        #expect(state.nick == "alicia")
        let action = try handle(":bob!b@h PRIVMSG #chat :\u{1}ACTION waves\u{1}")
        #expect(action == [.show(ChatDisplayLine(.action, channel: "#chat", nick: "bob", "waves"))])
        #expect(try handle(":srv 670 alicia :go ahead") == [.startTLS])
        #expect(try handle("ERROR :Closing Link: h (bye)") == [.closing("Closing Link: h (bye)")])
        state.connectionEnded()
        #expect(state.autojoin == ["#Chat"], "a reconnection rejoins the channels it was in")
    }

    @Test func theLineEditorEditsAndSubmits() {
        var editor = ChatLineEditor()
        #expect(editor.feed(Array("helo".utf8)) == [.edited, .edited, .edited, .edited])
        _ = editor.feed([0x1B, 0x5B, 0x44])  // left arrow
        _ = editor.feed(Array("l".utf8))
        #expect(editor.text == "hello")
        _ = editor.feed([0x05])  // Ctrl-E: to the end
        _ = editor.feed(Array(" wörld".utf8))
        _ = editor.feed([0x7F])  // backspace
        #expect(editor.text == "hello wörl")
        _ = editor.feed([0x17])  // Ctrl-W: the last word
        #expect(editor.text == "hello ")
        #expect(editor.feed([0x0D]) == [.submitted("hello ")])
        #expect(editor.text.isEmpty)
        _ = editor.feed([0x1B, 0x5B, 0x41])  // up: the last line again
        #expect(editor.text == "hello ")
        _ = editor.feed([0x15])  // Ctrl-U
        #expect(editor.text.isEmpty)
        #expect(editor.feed([0x04]) == [.interrupted])
        #expect(editor.feed([0x03]) == [.interrupted])
    }

    /// A peer cannot move the cursor, clear the screen or recolour the terminal.
    @Test func theFormatterNeutralisesControlCharactersFromPeers() {
        let formatter = ChatFormatter(colors: true, timestamps: false)
        let hostile = ChatDisplayLine(.message, nick: "evil\u{1B}[2J", "\u{1B}]0;owned\u{7}\u{1B}[31mred\u{9B}2J")
        let shown = formatter.render(hostile)
        #expect(!shown.contains("\u{1B}[2J"))
        #expect(!shown.contains("\u{1B}]0;"))
        #expect(!shown.contains("\u{1B}[31mred"))
        #expect(!shown.unicodeScalars.contains("\u{9B}"))
        #expect(shown.contains("^[[2J"))
        let plain = ChatFormatter(colors: false, timestamps: false)
        #expect(plain.render(ChatDisplayLine(.message, channel: "#c", nick: "bob", "hi"), currentChannel: "#c") == "<bob> hi")
        #expect(plain.render(ChatDisplayLine(.message, channel: "#d", nick: "bob", "hi"), currentChannel: "#c") == "[#d] <bob> hi")
    }

    @Test func fingerprintsAreReadInTheFormsToolsPrint() throws {
        let hex = String(repeating: "ab", count: 31) + "0f"
        let expected = Array(repeating: UInt8(0xAB), count: 31) + [0x0F]
        let withColons = stride(from: 0, to: 64, by: 2).map { offset -> String in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 2)])
        }.joined(separator: ":")
        for text in ["sha256:" + hex, "SHA256:" + hex.uppercased(), "sha256:" + withColons, "SHA256:" + withColons.uppercased(), hex, withColons] {
            #expect(ChatClientOptions.fingerprint(fromUserInput: text) == expected, "\(text)")
        }
        for bad in ["sha256:" + hex.dropLast(), "sha1:" + hex, "sha256:" + hex + "00", "sha256:" + hex.dropLast() + "g", "", "sha256:"] {
            #expect(ChatClientOptions.fingerprint(fromUserInput: String(bad)) == nil, "\(bad)")
        }
    }
}
