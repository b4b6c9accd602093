//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
        #expect(
            parse("/part #other gone for tea")
                == .send([IRCMessage(command: "PART", parameters: ["#other", "gone for tea"])]))
        #expect(
            parse("/msg bob  hi  there") == .send([IRCMessage(command: "PRIVMSG", parameters: ["bob", "hi  there"])]))
        #expect(
            parse("/me waves")
                == .send([IRCMessage(command: "PRIVMSG", parameters: ["#chat", "\u{1}ACTION waves\u{1}"])]))
        #expect(parse("/nick new") == .send([IRCMessage(command: "NICK", parameters: ["new"])]))
        #expect(parse("/names") == .send([IRCMessage(command: "NAMES", parameters: ["#chat"])]))
        #expect(parse("/list") == .send([IRCMessage(command: "LIST")]))
        #expect(parse("/quit see you") == .quit("see you"))
        #expect(parse("/servers") == .listServers)
        #expect(parse("/whois bob") == .send([IRCMessage(command: "WHOIS", parameters: ["bob"])]))
        #expect(parse("/away gone fishing") == .send([IRCMessage(command: "AWAY", parameters: ["gone fishing"])]))
        #expect(parse("/away") == .send([IRCMessage(command: "AWAY")]))
        #expect(parse("   ") == .none)
        if case .error = parse("hello", in: nil) {
        } else {
            Issue.record("plain text without a channel must be an error")
        }
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

    @Test func aKickRemovesTheChannelAndModeChangesShow() throws {
        var state = ChatClientState(nick: "alice")
        func handle(_ line: String) throws -> [ChatClientState.Effect] { state.handle(try IRCMessage(parsing: line)) }
        _ = try handle(":srv 001 alice :Welcome")
        _ = try handle(":alice!a@h JOIN #one")
        _ = try handle(":alice!a@h JOIN #two")
        #expect(
            try handle(":op!o@h KICK #two bob :spam") == [
                .show(ChatDisplayLine(.presence, channel: "#two", nick: "op", "op kicked bob from #two (spam)"))
            ])
        #expect(state.channels == ["#one", "#two"], "someone else's kick leaves us in")
        #expect(
            try handle(":op!o@h KICK #TWO ALICE :out you go") == [
                .show(ChatDisplayLine(.presence, channel: "#TWO", nick: "op", "op kicked you from #TWO (out you go)"))
            ])
        #expect(state.channels == ["#one"])
        #expect(state.currentChannel == "#one", "plain text no longer goes to the channel we were kicked from")
        _ = try handle(":op!o@h KICK #one alice")
        #expect(state.channels.isEmpty)
        #expect(state.currentChannel == nil)
        #expect(state.isReady, "typed lines go on after a kick from the last channel")
        #expect(
            try handle(":op!o@h MODE #one +o bob") == [
                .show(ChatDisplayLine(.presence, channel: "#one", nick: "op", "op set mode +o bob on #one"))
            ])
        #expect(try handle(":alice MODE alice :+i") == [.show(ChatDisplayLine(.info, "your user mode: +i"))])
    }

    @Test func typedLinesWaitForTheFirstJoinOrItsRefusal() throws {
        var state = ChatClientState(nick: "alice", autojoin: ["#chat"])
        func handle(_ line: String) throws { _ = state.handle(try IRCMessage(parsing: line)) }
        #expect(!state.isReady)
        try handle(":srv 001 alice :Welcome")
        #expect(!state.isReady, "registered, but #chat not joined yet")
        try handle(":srv 422 alice :MOTD File is missing")
        #expect(!state.isReady, "an error that is not about the join")
        try handle(":alice!a@h JOIN #chat")
        #expect(state.isReady)
        try handle(":alice!a@h KICK #chat alice")
        #expect(state.isReady, "kicked from the only channel: still ready")

        state.connectionEnded()
        #expect(state.autojoin.isEmpty, "a reconnection does not rejoin the channel we were kicked from")

        for refusal in [
            ":srv 474 alice #chat :Cannot join channel (+b)", ":srv 926 alice #CHAT :Channel #chat is forbidden",
        ] {
            var refused = ChatClientState(nick: "alice", autojoin: ["#chat"])
            _ = refused.handle(try IRCMessage(parsing: ":srv 001 alice :Welcome"))
            _ = refused.handle(try IRCMessage(parsing: ":srv 404 alice #other :Cannot send to channel"))
            #expect(!refused.isReady, "an error about another channel")
            _ = refused.handle(try IRCMessage(parsing: refusal))
            #expect(refused.isReady, "a refused join does not hold typed lines back: \(refusal)")
        }
        #expect(ChatClientState.duration(45) == "45 s")
        #expect(ChatClientState.duration(185) == "3 min 5 s")
        #expect(ChatClientState.duration(7800) == "2 h 10 min")
    }

    @Test func privateMessagesAndCTCPAreToldApart() throws {
        var state = ChatClientState(nick: "alice")
        func handle(_ line: String) throws -> [ChatClientState.Effect] { state.handle(try IRCMessage(parsing: line)) }
        #expect(
            try handle(":bob!b@h PRIVMSG #chat :hello") == [
                .show(ChatDisplayLine(.message, channel: "#chat", nick: "bob", "hello"))
            ])
        #expect(
            try handle(":bob!b@h PRIVMSG alice :psst") == [.show(ChatDisplayLine(.privateMessage, nick: "bob", "psst"))]
        )
        #expect(
            try handle(":bob!b@h PRIVMSG alice :\u{1}VERSION\u{1}") == [
                .show(ChatDisplayLine(.info, "bob sent a CTCP VERSION request (not answered)"))
            ])
        #expect(
            try handle(":bob!b@h NOTICE alice :\u{1}VERSION irssi 1.4\u{1}") == [
                .show(ChatDisplayLine(.info, "CTCP VERSION reply from bob: irssi 1.4"))
            ])
        #expect(
            try handle(":bob!b@h PRIVMSG alice :\u{1}ACTION waves") == [
                .show(ChatDisplayLine(.action, nick: "bob", "waves (to you)"))
            ], "the closing \\x01 is optional")
        #expect(
            try handle(":srv 311 alice bob b host.example * :Bob Smith") == [
                .show(ChatDisplayLine(.info, "bob is b@host.example (Bob Smith)"))
            ])
        #expect(try handle(":srv 319 alice bob :#a #b") == [.show(ChatDisplayLine(.info, "bob is in #a #b"))])
        #expect(
            try handle(":srv 301 alice bob :gone fishing") == [
                .show(ChatDisplayLine(.info, "bob is away: gone fishing"))
            ])
        #expect(try handle(":srv 318 alice bob :End of /WHOIS list").isEmpty)
        let rendered = ChatFormatter(colors: false, timestamps: false).render(
            ChatDisplayLine(.privateMessage, nick: "bob", "psst"))
        #expect(rendered == "*bob* psst")
    }

    @Test func theServersChannelTypesAreUsed() throws {
        var state = ChatClientState(nick: "alice")
        func handle(_ line: String) throws -> [ChatClientState.Effect] { state.handle(try IRCMessage(parsing: line)) }
        func parse(_ line: String) -> ChatInputCommand {
            ChatInputCommand(parsing: line, currentChannel: state.currentChannel, channelTypes: state.channelTypes)
        }
        #expect(
            parse("/join &local") == .send([IRCMessage(command: "JOIN", parameters: ["&local"])]),
            "# and & until 005 says")
        _ = try handle(":srv 005 alice CHANTYPES=#&!+ :are supported")
        #expect(
            parse("/join !net,+modeless,plain")
                == .send([IRCMessage(command: "JOIN", parameters: ["!net,+modeless,#plain"])]))
        #expect(parse("/part &local bye") == .send([IRCMessage(command: "PART", parameters: ["&local", "bye"])]))
        #expect(
            try handle(":bob!b@h PRIVMSG &local :hi") == [
                .show(ChatDisplayLine(.message, channel: "&local", nick: "bob", "hi"))
            ])
        _ = try handle(":srv 005 alice CHANTYPES=# :are supported")
        #expect(parse("/join &local") == .send([IRCMessage(command: "JOIN", parameters: ["#&local"])]))
        #expect(IRCName.channelName("chat") == "#chat")
        #expect(IRCName.channelName("&chat") == "&chat")
    }

    @Test func nicknameRetriesFitTheServersLimit() throws {
        var state = ChatClientState(nick: "abcdefghijklmno")
        func handle(_ line: String) throws -> [ChatClientState.Effect] { state.handle(try IRCMessage(parsing: line)) }
        // ircd-hybrid with NICKLEN=15 cuts the retry `abcdefghijklmno_` and refuses the cut name,
        // as it saw it: the retries after that fit 15 characters.
        _ = try handle(":srv 433 * abcdefghijklmno :Nickname is already in use.")
        #expect(state.nick == "abcdefghijklmno_")
        _ = try handle(":srv 433 * abcdefghijklmno :Nickname is already in use.")
        #expect(state.nicknameLimit == 15)
        #expect(state.nick == "abcdefghijklm__")
        _ = try handle(":srv 433 * abcdefghijklm__ :Nickname is already in use.")
        #expect(state.nick == "abcdefghijkl___")

        var cut = ChatClientState(nick: "averyveryverylongnickname")
        _ = cut.handle(try IRCMessage(parsing: ":srv 433 * averyveryverylon :Nickname is already in use."))
        #expect(cut.nicknameLimit == 16, "the server named the nickname it cut")
        #expect(cut.nick == "averyveryverylo_")
        _ = cut.handle(try IRCMessage(parsing: ":srv 005 x NICKLEN=9 :are supported"))
        #expect(cut.nicknameLimit == 9)

        #expect(ChatInputCommand.worksBeforeRegistration("/nick other"))
        #expect(ChatInputCommand.worksBeforeRegistration(" /QUOTE PASS x"))
        #expect(!ChatInputCommand.worksBeforeRegistration("/join #chat"))
        #expect(!ChatInputCommand.worksBeforeRegistration("//nick is plain text"))
        state.nicknameRequested("other")
        #expect(state.nick == "other")

        // A refusal of an earlier try that arrives after the user's /nick neither replaces the
        // user's choice nor teaches a limit.
        var racing = ChatClientState(nick: "bob")
        _ = racing.handle(try IRCMessage(parsing: ":srv 433 * bob :Nickname is already in use"))
        #expect(racing.nick == "bob_")
        racing.nicknameRequested("bobby")
        let late = racing.handle(try IRCMessage(parsing: ":srv 433 * bob_ :Nickname is already in use"))
        #expect(!late.contains { if case .send = $0 { true } else { false } }, "\(late)")
        #expect(racing.nick == "bobby")
        _ = racing.handle(try IRCMessage(parsing: ":srv 433 * bob :Nickname is already in use"))
        #expect(racing.nicknameLimit == IRCLimits.nicknameLength)
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
        #expect(
            plain.render(ChatDisplayLine(.message, channel: "#c", nick: "bob", "hi"), currentChannel: "#c")
                == "<bob> hi")
        #expect(
            plain.render(ChatDisplayLine(.message, channel: "#d", nick: "bob", "hi"), currentChannel: "#c")
                == "[#d] <bob> hi")
    }

    /// mIRC formatting (ZNC's and bitlbee's replies use it) is left out, not shown as `^B`;
    /// other controls still show.
    @Test func theFormatterLeavesOutIRCFormattingCodes() {
        let plain = ChatFormatter(colors: false, timestamps: false)
        let text =
            "\u{02}bold\u{0F} \u{03}04,12colour\u{03} 3,5 \u{03}7,x \u{04}FF00AAhex \u{1D}it\u{1F}u\u{1E}s\u{11}m\u{16}r \u{01}"
        #expect(
            plain.render(ChatDisplayLine(.notice, nick: "*status", text))
                == "-*status- bold colour 3,5 ,x hex itusmr ^A")
    }

    @Test(arguments: [
        (["3"], "channels formed", false, "3 channels formed"),
        (["3", "5"], "Current local users 3, max 5", false, "Current local users 3, max 5"),
        (["#c"], "No such channel", true, "#c: No such channel"),
        (["7"], "Not enough parameters", true, "7: Not enough parameters"),
        (["bob", "2"], "some text", false, "bob 2: some text"),
        ([], "Welcome", false, "Welcome"),
    ])
    func numericRepliesWithoutASentenceReadNaturally(middle: [String], last: String, isError: Bool, expected: String) {
        #expect(ChatClientState.numericReplyText(middle: middle, last: last, isError: isError) == expected)
    }

    @Test func fingerprintsAreReadInTheFormsToolsPrint() throws {
        let hex = String(repeating: "ab", count: 31) + "0f"
        let expected = Array(repeating: UInt8(0xAB), count: 31) + [0x0F]
        let withColons = stride(from: 0, to: 64, by: 2).map { offset -> String in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 2)])
        }.joined(separator: ":")
        for text in [
            "sha256:" + hex, "SHA256:" + hex.uppercased(), "sha256:" + withColons, "SHA256:" + withColons.uppercased(),
            hex, withColons,
        ] {
            #expect(ChatClientOptions.fingerprint(fromUserInput: text) == expected, "\(text)")
        }
        for bad in [
            "sha256:" + hex.dropLast(), "sha1:" + hex, "sha256:" + hex + "00", "sha256:" + hex.dropLast() + "g", "",
            "sha256:",
        ] {
            #expect(ChatClientOptions.fingerprint(fromUserInput: String(bad)) == nil, "\(bad)")
        }
    }
}
