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

@testable import ChatServerCore

/// The server's protocol logic as plain values: events in, actions out.
@Suite struct ChatServerStateTests {
    private var state = ChatServerState(identity: ChatServerFixture.identity(tls: true), maximumClients: 3)

    private mutating func say(_ line: String, from id: ChatClientID, now: Int = 1_000) throws -> [ChatServerAction] {
        try state.receive(IRCMessage(parsing: line), from: id, now: now)
    }

    private mutating func register(_ id: ChatClientID, _ nick: String, host: String = "127.0.0.1") throws {
        _ = state.connect(id, host: host)
        _ = try say("NICK \(nick)", from: id)
        _ = try say("USER \(nick) 0 * :\(nick)", from: id)
        #expect(state.isRegistered(id))
    }

    /// The command of each line (`311`, `PRIVMSG`…).
    private func commands(_ lines: [String]) -> [String] {
        lines.map { String($0.split(separator: " ")[1]) }
    }

    /// The space-separated items of a line's last parameter (the nicks of a `303`…).
    private func lastItems(_ line: String) -> [String] {
        let last = (try? IRCMessage(parsing: line))?.parameters.last ?? ""
        return last.split(separator: " ").map(String.init)
    }

    /// The `319` lines `id` gets for `WHOIS <nick>`.
    private mutating func whoisChannels(_ nick: String, askedBy id: ChatClientID) throws -> [String] {
        sent(try say("WHOIS \(nick)", from: id), to: id).filter { commands([$0]) == ["319"] }
    }

    @Test mutating func capabilityNegotiationHoldsRegistrationUntilCapEnd() throws {
        _ = state.connect(1, host: "::1")
        #expect(sent(try say("CAP LS 302", from: 1), to: 1) == [":chat.test CAP * LS tls"])
        #expect(try say("NICK alice", from: 1).isEmpty)
        #expect(try say("USER alice 0 * :Alice", from: 1).isEmpty)
        #expect(!state.isRegistered(1))
        #expect(
            sent(try say("CAP REQ :tls multi-prefix", from: 1), to: 1) == [":chat.test CAP alice NAK :tls multi-prefix"]
        )
        #expect(sent(try say("CAP REQ tls", from: 1), to: 1) == [":chat.test CAP alice ACK tls"])
        let welcome = sent(try say("CAP END", from: 1), to: 1)
        #expect(welcome.first == ":chat.test 001 alice :Welcome to the Test Chat IRC Network, alice!alice@0::1")
        #expect(
            welcome.map { $0.split(separator: " ")[1] } == ["001", "002", "003", "004", "005", "375", "372", "376"])
        #expect(sent(try say("CAP LIST", from: 1), to: 1) == [":chat.test CAP alice LIST tls"])
    }

    @Test mutating func onlyRegistrationCommandsAreAcceptedBeforeRegistration() throws {
        _ = state.connect(1, host: "127.0.0.1")
        #expect(sent(try say("JOIN #a", from: 1), to: 1) == [":chat.test 451 * :You have not registered"])
        #expect(sent(try say("PING x", from: 1), to: 1) == [":chat.test PONG chat.test x"])
        #expect(sent(try say("NICK 9lives", from: 1), to: 1) == [":chat.test 432 * 9lives :Erroneous nickname"])
        #expect(sent(try say("USER a b", from: 1), to: 1) == [":chat.test 461 * USER :Not enough parameters"])
    }

    @Test mutating func startTLSIsAnsweredThenStartedAndRefusedOnceRegistered() throws {
        _ = state.connect(1, host: "127.0.0.1")
        let actions = try say("STARTTLS", from: 1)
        #expect(sent(actions, to: 1) == [":chat.test 670 * :STARTTLS successful, proceed with TLS handshake"])
        #expect(actions.last == .startTLS(1))
        state.tlsEstablished(1)
        #expect(sent(try say("STARTTLS", from: 1), to: 1) == [":chat.test 691 * :STARTTLS failed (already using TLS)"])
        try register(2, "bob")
        #expect(
            sent(try say("STARTTLS", from: 2), to: 2) == [":chat.test 691 bob :STARTTLS failed (already registered)"])
    }

    @Test mutating func channelMessagesGoToEveryOtherMemberOnly() throws {
        try register(1, "alice")
        try register(2, "bob")
        try register(3, "carol")
        _ = try say("JOIN #chat", from: 1)
        let join = try say("JOIN #Chat", from: 2)
        #expect(sent(join, to: 1) == [":bob!bob@127.0.0.1 JOIN #Chat"])
        #expect(sent(join, to: 2).contains(":chat.test 353 bob = #Chat :alice bob"))
        let message = try say("PRIVMSG #CHAT :hi", from: 1)
        #expect(message == [.broadcast([2], IRCMessage(source: "alice!alice@127.0.0.1", "PRIVMSG", "#CHAT", "hi"))])
        #expect(
            sent(try say("PRIVMSG #chat :let me in", from: 3), to: 3) == [
                ":chat.test 404 carol #chat :Cannot send to channel"
            ])
        #expect(
            sent(try say("PRIVMSG #nowhere :x", from: 3), to: 3) == [":chat.test 403 carol #nowhere :No such channel"])
        #expect(sent(try say("PRIVMSG dave :x", from: 3), to: 3) == [":chat.test 401 carol dave :No such nick/channel"])
        #expect(
            sent(try say("PRIVMSG a,b,c,d,e :x", from: 3), to: 3).last == ":chat.test 407 carol e :Too many targets")
        #expect(sent(try say("PRIVMSG", from: 3), to: 3) == [":chat.test 411 carol :No recipient given (PRIVMSG)"])
        #expect(try say("NOTICE dave :x", from: 3).isEmpty, "NOTICE is never answered with an error")
        let whisper = try say("PRIVMSG bob :psst", from: 3)
        #expect(sent(whisper, to: 2) == [":carol!carol@127.0.0.1 PRIVMSG bob psst"], "\(whisper)")
    }

    @Test mutating func quittingTellsTheChannelsOnceAndClosesWithAReason() throws {
        try register(1, "alice")
        try register(2, "bob")
        _ = try say("JOIN #a,#b", from: 1)
        _ = try say("JOIN #a,#b", from: 2)
        let actions = try say("QUIT :bye", from: 1)
        #expect(
            actions == [
                .broadcast([2], IRCMessage(source: "alice!alice@127.0.0.1", "QUIT", "Quit: bye")),
                .close(1, reason: "Quit: bye"),
            ])
        #expect(state.clients[1] == nil)
        #expect(state.channels["#a"]?.members == [2])
        #expect(state.client(named: "ALICE") == nil, "the nickname is free again")
    }

    @Test mutating func nickChangesAreAnnouncedOnceToEachPeer() throws {
        try register(1, "alice")
        try register(2, "bob")
        _ = try say("JOIN #a,#b", from: 1)
        _ = try say("JOIN #a,#b", from: 2)
        let actions = try say("NICK alicia", from: 1)
        #expect(sent(actions, to: 1) == [":alice!alice@127.0.0.1 NICK alicia"])
        #expect(sent(actions, to: 2) == [":alice!alice@127.0.0.1 NICK alicia"])
        #expect(state.client(named: "Alicia")?.id == 1)
    }

    @Test mutating func topicsModesWhoAndListFollowTheProtocol() throws {
        try register(1, "alice")
        _ = try say("JOIN #c", from: 1)
        #expect(sent(try say("TOPIC #c", from: 1), to: 1) == [":chat.test 331 alice #c :No topic is set"])
        let long = String(repeating: "é", count: 200)
        _ = try say("TOPIC #c :\(long)", from: 1)
        #expect(state.channels["#c"]?.topic?.utf8.count == 390)
        #expect(
            sent(try say("MODE #c", from: 1), to: 1) == [":chat.test 324 alice #c +n", ":chat.test 329 alice #c 1000"])
        #expect(sent(try say("MODE #c +m", from: 1), to: 1) == [":chat.test 482 alice #c :You're not channel operator"])
        #expect(sent(try say("MODE alice +i", from: 1), to: 1) == [":alice MODE alice +i"])
        #expect(sent(try say("MODE alice", from: 1), to: 1) == [":chat.test 221 alice +i"])
        #expect(sent(try say("MODE bob", from: 1), to: 1) == [":chat.test 502 alice :Cant change mode for other users"])
        #expect(
            sent(try say("WHO alice", from: 1), to: 1).first
                == ":chat.test 352 alice * alice 127.0.0.1 chat.test alice H :0 alice")
        #expect(sent(try say("LIST", from: 1), to: 1).count == 3)
        #expect(sent(try say("FROB", from: 1), to: 1) == [":chat.test 421 alice FROB :Unknown command"])
    }

    @Test mutating func awaySetsTheAwayMessageCutToAwayLenAndClearsIt() throws {
        try register(1, "alice")
        #expect(
            sent(try say("AWAY :at the tea shop", from: 1), to: 1) == [
                ":chat.test 306 alice :You have been marked as being away"
            ])
        #expect(state.clients[1]?.awayMessage == "at the tea shop")
        // 301 bytes: cut to the 200 of AWAYLEN, at a character boundary (199).
        _ = try say("AWAY :x" + String(repeating: "é", count: 150), from: 1)
        #expect(state.clients[1]?.awayMessage == "x" + String(repeating: "é", count: 99))
        #expect(
            sent(try say("AWAY", from: 1), to: 1) == [":chat.test 305 alice :You are no longer marked as being away"])
        #expect(state.clients[1]?.awayMessage == nil)
        _ = try say("AWAY :back soon", from: 1)
        #expect(
            sent(try say("AWAY :", from: 1), to: 1) == [":chat.test 305 alice :You are no longer marked as being away"])
        #expect(state.clients[1]?.awayMessage == nil, "an empty text marks the client back too")
    }

    @Test mutating func aPrivmsgToAnAwayNickIsAnsweredWith301ButANoticeOrAChannelMessageIsNot() throws {
        try register(1, "alice")
        try register(2, "bob")
        _ = try say("JOIN #c", from: 1)
        _ = try say("JOIN #c", from: 2)
        #expect(sent(try say("PRIVMSG bob :tea?", from: 1), to: 1).isEmpty, "bob is not away yet")
        _ = try say("AWAY :at the tea shop", from: 2)
        let privmsg = try say("PRIVMSG BOB :tea?", from: 1)
        #expect(sent(privmsg, to: 2) == [":alice!alice@127.0.0.1 PRIVMSG BOB tea?"], "still delivered")
        #expect(sent(privmsg, to: 1) == [":chat.test 301 alice bob :at the tea shop"])
        #expect(sent(try say("NOTICE bob :tea?", from: 1), to: 1).isEmpty)
        #expect(sent(try say("PRIVMSG #c :tea?", from: 1), to: 1).isEmpty)
    }

    @Test mutating func whoFlagsAnAwayClientGoneAndAClientBackHere() throws {
        try register(1, "alice")
        try register(2, "bob")
        _ = try say("JOIN #c", from: 1)
        _ = try say("JOIN #c", from: 2)
        _ = try say("AWAY :out", from: 2)
        #expect(
            sent(try say("WHO #c", from: 1), to: 1) == [
                ":chat.test 352 alice #c alice 127.0.0.1 chat.test alice H :0 alice",
                ":chat.test 352 alice #c bob 127.0.0.1 chat.test bob G :0 bob",
                ":chat.test 315 alice #c :End of WHO list",
            ])
        _ = try say("AWAY", from: 2)
        #expect(
            sent(try say("WHO bob", from: 1), to: 1).first
                == ":chat.test 352 alice * bob 127.0.0.1 chat.test bob H :0 bob")
    }

    @Test mutating func userhostGivesUserAndHostAndAnAwayFlagForTheFirstFiveNicks() throws {
        try register(1, "alice")
        try register(2, "bob")
        _ = state.connect(3, host: "127.0.0.1")
        _ = try say("NICK carol", from: 3)  // not registered yet: not on the server
        _ = try say("AWAY :out", from: 2)
        #expect(
            sent(try say("USERHOST ALICE bob carol dave", from: 1), to: 1) == [
                ":chat.test 302 alice :alice=+alice@127.0.0.1 bob=-bob@127.0.0.1"
            ])
        #expect(
            sent(try say("USERHOST a b c d e alice", from: 1), to: 1) == [":chat.test 302 alice :"],
            "a sixth nick is ignored")
        #expect(sent(try say("USERHOST", from: 1), to: 1) == [":chat.test 461 alice USERHOST :Not enough parameters"])
    }

    @Test mutating func isonListsThePresentNicksOnceAsTheirOwnersWriteThem() throws {
        try register(1, "alice")
        try register(2, "Bob")
        _ = state.connect(3, host: "127.0.0.1")
        _ = try say("NICK carol", from: 3)  // not registered yet: not on the server
        #expect(sent(try say("ISON BOB dave carol ALICE bob", from: 1), to: 1) == [":chat.test 303 alice :Bob alice"])
        #expect(
            sent(try say("ISON :bob  alice", from: 1), to: 1) == [":chat.test 303 alice :Bob alice"],
            "one parameter with spaces")
        #expect(sent(try say("ISON dave", from: 1), to: 1) == [":chat.test 303 alice :"])
        // ircII's notify list: more than 15 words and no `:`, the fifteenth parameter the rest.
        let many = (1...20).map { "n\($0)" }.joined(separator: " ")
        #expect(sent(try say("ISON \(many) alice bob", from: 1), to: 1) == [":chat.test 303 alice :alice Bob"])
        #expect(sent(try say("ISON", from: 1), to: 1) == [":chat.test 461 alice ISON :Not enough parameters"])
        #expect(sent(try say("ISON :", from: 1), to: 1) == [":chat.test 461 alice ISON :Not enough parameters"])
    }

    /// Clients read one `303` or `302` per query, so the reply stays one line even when a
    /// full-length request names more present nicks than the reply's longer prefix leaves room for.
    @Test mutating func isonAndUserhostRepliesFitInOneLine() throws {
        state = ChatServerState(identity: ChatServerFixture.identity(tls: true), maximumClients: 30)
        try register(100, String(repeating: "q", count: 30))
        let nicks = (0..<16).map { "n" + String(repeating: "x", count: 27) + ($0 < 10 ? "0\($0)" : "\($0)") }
        for (index, nick) in nicks.enumerated() { try register(index + 1, nick) }
        let ison = sent(try say("ISON :" + nicks.joined(separator: " "), from: 100), to: 100)
        try #require(ison.count == 1)
        let listed = lastItems(ison[0])
        #expect(ison[0].utf8.count <= IRCLimits.messageLength, "\(ison[0])")
        #expect(listed == Array(nicks.prefix(listed.count)))
        #expect(ison[0].utf8.count + 31 > IRCLimits.messageLength, "one more nick would have fitted")

        // Five of the longest entries: 30-byte nicks, 18-byte users, 45-byte IPv6 hosts.
        let host = "0000:0000:0000:0000:0000:ffff:255.255.255.255"
        let long = (0..<5).map { "u" + String(repeating: "y", count: 28) + "\($0)" }
        for (index, nick) in long.enumerated() { try register(index + 21, nick, host: host) }
        let userhost = sent(try say("USERHOST " + long.joined(separator: " "), from: 100), to: 100)
        try #require(userhost.count == 1)
        #expect(userhost[0].utf8.count <= IRCLimits.messageLength, "\(userhost[0])")
        #expect(
            userhost[0].hasSuffix(
                " :" + long.prefix(4).map { "\($0)=+\($0.prefix(18))@\(host)" }.joined(separator: " ")))
    }

    @Test mutating func whoisTellsUserChannelsServerAwayTLSAndIdleTimeThenEnds() throws {
        _ = state.connect(1, host: "127.0.0.1")
        _ = try say("STARTTLS", from: 1, now: 900)
        state.tlsEstablished(1)
        _ = try say("NICK alice", from: 1, now: 900)
        _ = try say("USER alice 0 * :Alice Liddell", from: 1, now: 900)
        _ = try say("JOIN #a,#b", from: 1, now: 900)
        _ = try say("PRIVMSG #a :hi", from: 1, now: 950)
        try register(2, "bob")
        _ = try say("JOIN #b", from: 2)
        _ = try say("AWAY :at the tea shop", from: 1)
        #expect(
            sent(try say("WHOIS Alice", from: 2, now: 1_000), to: 2) == [
                ":chat.test 311 bob alice alice 127.0.0.1 * :Alice Liddell",
                ":chat.test 319 bob alice :#a #b",
                ":chat.test 312 bob alice chat.test :Test Chat",
                ":chat.test 301 bob alice :at the tea shop",
                ":chat.test 671 bob alice :is using a secure connection",
                ":chat.test 317 bob alice 50 900 :seconds idle, signon time",
                ":chat.test 318 bob Alice :End of /WHOIS list",
            ])
        // bob: plaintext, here, in one channel, silent since registering.
        let aboutBob = sent(try say("WHOIS bob", from: 1, now: 1_010), to: 1)
        #expect(commands(aboutBob) == ["311", "319", "312", "317", "318"])
        #expect(aboutBob[3] == ":chat.test 317 alice bob 10 1000 :seconds idle, signon time")
    }

    /// `+i` hides which channels a client is in from those not in them (as NAMES and WHO do
    /// on servers with visibility rules); the client itself still sees all of its own.
    @Test mutating func whoisShowsAnInvisibleClientsChannelsOnlyToThoseWhoShareThem() throws {
        try register(1, "alice")
        try register(2, "bob")
        try register(3, "carol")
        _ = try say("JOIN #a,#b", from: 1)
        _ = try say("JOIN #b", from: 2)
        #expect(try whoisChannels("alice", askedBy: 3) == [":chat.test 319 carol alice :#a #b"])
        _ = try say("MODE alice +i", from: 1)
        #expect(try whoisChannels("alice", askedBy: 2) == [":chat.test 319 bob alice #b"])
        #expect(try whoisChannels("alice", askedBy: 3) == [], "carol shares no channel with alice")
        #expect(try whoisChannels("alice", askedBy: 1) == [":chat.test 319 alice alice :#a #b"])
    }

    @Test mutating func whoisAnswersTheFirstFourNicksAnd401ForUnknownOnesAnd431WithoutOne() throws {
        try register(1, "alice")
        try register(2, "bob")
        #expect(sent(try say("WHOIS", from: 1), to: 1) == [":chat.test 431 alice :No nickname given"])
        #expect(
            sent(try say("WHOIS dave", from: 1), to: 1) == [
                ":chat.test 401 alice dave :No such nick/channel", ":chat.test 318 alice dave :End of /WHOIS list",
            ])
        #expect(commands(sent(try say("WHOIS b*", from: 1), to: 1)) == ["401", "318"], "a mask matches no one")
        #expect(commands(sent(try say("WHOIS elsewhere.example bob", from: 1), to: 1)) == ["311", "312", "317", "318"])
        #expect(
            sent(try say("WHOIS a,b,c,d,bob", from: 1), to: 1) == [
                ":chat.test 401 alice a :No such nick/channel",
                ":chat.test 401 alice b :No such nick/channel",
                ":chat.test 401 alice c :No such nick/channel",
                ":chat.test 401 alice d :No such nick/channel",
                ":chat.test 318 alice a,b,c,d,bob :End of /WHOIS list",
            ])
        // What cannot be echoed as sent is echoed as `*`, or cut to fit: the replies still go.
        #expect(
            sent(try say("WHOIS :bob dave", from: 1), to: 1) == [
                ":chat.test 401 alice * :No such nick/channel", ":chat.test 318 alice * :End of /WHOIS list",
            ])
        let long = sent(try say("WHOIS " + String(repeating: "x", count: 500), from: 1), to: 1)
        #expect(commands(long) == ["401", "318"])
        #expect(long.allSatisfy { $0.utf8.count == IRCLimits.messageLength }, "\(long)")
    }

    @Test mutating func whoisSplitsAClientsChannelsOverLinesThatFit() throws {
        try register(1, "alice")
        let names = (0..<IRCLimits.channelsPerClient).map {
            "#" + String(repeating: "c", count: 47) + ($0 < 10 ? "0\($0)" : "\($0)")
        }
        for name in names { _ = try say("JOIN \(name)", from: 1) }
        let lines = try whoisChannels("alice", askedBy: 1)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.utf8.count <= IRCLimits.messageLength })
        let listed = lines.flatMap(lastItems)
        #expect(listed == names)
    }

    @Test mutating func versionGivesTheVersionAndTheISupportTokens() throws {
        try register(1, "alice")
        let version = sent(try say("VERSION", from: 1), to: 1)
        #expect(version.first == ":chat.test 351 alice streamtaskkit-chat-1 chat.test :StreamTaskKit chat example")
        #expect(version.dropFirst().map { $0.hasPrefix(":chat.test 005 alice AWAYLEN=200 ") } == [true])
    }

    /// Lists split at the comma byte: a comma followed by a combining mark (one Swift
    /// `Character` with it) still separates two items (found by fuzzing the tag parser).
    @Test mutating func listsSplitAtTheCommaEvenBeforeACombiningMark() throws {
        try register(1, "alice")
        let actions = try say("JOIN #a,\u{0301}x", from: 1)
        #expect(sent(actions, to: 1).first == ":alice!alice@127.0.0.1 JOIN #a")
        #expect(sent(actions, to: 1).last == ":chat.test 403 alice \u{0301}x :No such channel")
    }

    /// Full of registered users, the server refuses the next connection. (Connections still
    /// registering give way instead: see the next test.)
    @Test mutating func pastTheClientLimitTheConnectionIsClosed() throws {
        for id in 1...3 { try register(id, "user\(id)") }
        #expect(state.connect(4, host: "127.0.0.1") == [.close(4, reason: "Server is full")])
    }

    /// Connections still registering have half the places (2 of 4 here); past that, or when
    /// the server is full, the oldest of them is closed to let the new one in.
    @Test mutating func theOldestConnectionStillRegisteringGivesWayToANewOne() throws {
        state = ChatServerState(identity: ChatServerFixture.identity(), maximumClients: 4)
        #expect(state.maximumUnregisteredClients == 2)
        try register(1, "alice")
        #expect(state.connect(2, host: "127.0.0.2").isEmpty)
        #expect(state.connect(3, host: "127.0.0.3").isEmpty)
        #expect(state.connect(4, host: "127.0.0.4") == [.close(2, reason: "Too many connections registering")])
        #expect(state.clients.keys.sorted() == [1, 3, 4])
        _ = try say("NICK bob", from: 3)
        _ = try say("USER bob 0 * :bob", from: 3)
        try register(5, "carol", host: "127.0.0.5")
        // Full, with one place still registering (4): a new connection takes it.
        #expect(state.clients.keys.sorted() == [1, 3, 4, 5])
        #expect(state.connect(6, host: "127.0.0.6") == [.close(4, reason: "Too many connections registering")])
        #expect(state.clients.keys.sorted() == [1, 3, 5, 6])
    }

    /// The per-address limit counts an IPv4 address, or an IPv6 /64, registered or not.
    @Test mutating func pastThePerAddressLimitTheConnectionIsRefused() throws {
        state = ChatServerState(identity: ChatServerFixture.identity(), maximumClients: 10, maximumClientsPerAddress: 2)
        try register(1, "alice", host: "2001:db8:1:2::1")
        #expect(state.connect(2, host: "2001:db8:1:2::ffff").isEmpty)
        #expect(
            state.connect(3, host: "2001:db8:1:2:abcd::9") == [
                .close(3, reason: "Too many connections from your address")
            ])
        #expect(state.connect(4, host: "2001:db8:1:3::1").isEmpty)
        #expect(state.connect(5, host: "127.0.0.1").isEmpty)
        _ = state.disconnect(2, reason: "Client Quit")
        #expect(state.connect(6, host: "2001:db8:1:2::6").isEmpty)
    }
}
