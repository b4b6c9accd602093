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

/// Server links as plain values: the lines of a linked server in, what the network and the
/// local clients get out (Protocol.md, "Server links"). The peer's lines are ngIRCd's, as
/// ngIRCd 26.1 sends them.
@Suite struct ChatServerLinkStateTests {
    private var state = ChatServerState(identity: ChatServerFixture.identity(), maximumClients: 10)
    private let hub = 10

    init() {
        state.linkPeers = [
            ChatLinkPeer(name: "hub.test", sentPassword: "mine", expectedPassword: "theirs"),
            ChatLinkPeer(
                name: "out.test", host: "127.0.0.1", port: 6667, sentPassword: "mine", expectedPassword: "theirs"),
        ]
    }

    private mutating func say(_ line: String, from id: ChatClientID, now: Int = 1_000) throws -> [ChatServerAction] {
        try state.receive(IRCMessage(parsing: line), from: id, now: now)
    }

    /// The reason `id` was closed with, if it was.
    private func closeReason(_ actions: [ChatServerAction], of id: ChatClientID) -> String? {
        actions.lazy.compactMap { action -> String? in
            if case .close(id, let reason) = action { return reason }
            return nil
        }.first
    }

    private mutating func register(_ id: ChatClientID, _ nick: String) throws {
        _ = state.connect(id, host: "127.0.0.1")
        _ = try say("NICK \(nick)", from: id)
        _ = try say("USER \(nick) 0 * :\(nick) here", from: id)
        #expect(state.isRegistered(id))
    }

    /// hub.test links in, as ngIRCd does, and the burst it gets back.
    private mutating func linkHub() throws -> [String] {
        _ = state.connect(hub, host: "127.0.0.1")
        #expect(try say("PASS theirs 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ", from: hub).isEmpty)
        return sent(try say("SERVER hub.test :ngIRCd hub", from: hub), to: hub)
    }

    /// two.test, a chat-server, links in on connection 11; what it is sent back.
    private mutating func linkTwo() throws -> [String] {
        _ = state.connect(11, host: "127.0.0.1")
        _ = try say("PASS theirs 0210-IRC+ chat-server|1:C P", from: 11)
        state.linkPeers.append(ChatLinkPeer(name: "two.test", sentPassword: "mine", expectedPassword: "theirs"))
        return sent(try say("SERVER two.test 1 :second", from: 11), to: 11)
    }

    @Test mutating func aServerLinksInAndGetsTheWholeNetwork() throws {
        try register(1, "alice")
        _ = try say("JOIN #chat", from: 1)
        _ = try say("TOPIC #chat :links today", from: 1)
        _ = try say("AWAY :lunch", from: 1)
        let burst = try linkHub()
        #expect(
            burst == [
                "PASS mine 0210-IRC+ chat-server|1:C P",
                "SERVER chat.test 1 :Test Chat",
                ":chat.test NICK alice 1 alice 127.0.0.1 1 +a :alice here",
                ":chat.test CHANINFO #chat +n :links today",
                ":chat.test NJOIN #chat alice",
                ":chat.test PING chat.test",
            ])
        #expect(state.isLink(hub) && state.isRegistered(hub))
        #expect(state.clients[hub] == nil, "a server is not a client")
        #expect(state.servers["hub.test"]?.hopCount == 1)
    }

    @Test mutating func awayIsAUserModeForNgircdAndATextForAChatServer() throws {
        try register(1, "alice")
        _ = try linkHub()
        _ = try linkTwo()
        let away = try say("AWAY :at lunch", from: 1)
        #expect(sent(away, to: hub) == [":alice MODE alice +a"])
        #expect(sent(away, to: 11) == [":alice AWAY :at lunch"])
        let back = try say("AWAY", from: 1)
        #expect(sent(back, to: hub) == [":alice MODE alice -a"])
        #expect(sent(back, to: 11) == [":alice AWAY"])
        // ngIRCd's away has no text: WHOIS and PRIVMSG say "Away", as ngIRCd does.
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 +a :Rudi", from: hub)
        #expect(sent(try say("PRIVMSG rudi :hi", from: 1), to: 1) == [":chat.test 301 alice rudi Away"])
        let relayed = try say(":rudi MODE rudi :-a", from: hub)
        #expect(sent(relayed, to: 11) == [":rudi MODE rudi -a"], "a MODE passes on as it came")
        #expect(state.client(named: "rudi")?.awayMessage == nil)
        _ = try say(":two.test NICK zed 1 zed z.host 1 + :Zed", from: 11)
        #expect(sent(try say(":zed AWAY :coffee", from: 11), to: hub) == [":zed MODE zed +a"])
        #expect(state.client(named: "zed")?.awayMessage == "coffee")
    }

    @Test mutating func aSplitSendsOneSquitPerServerFurthestFirst() throws {
        _ = try linkHub()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":leaf.test SERVER twig.test 3 3 :a twig", from: hub)
        _ = try linkTwo()
        #expect(
            sent(state.disconnect(hub, reason: "gone"), to: 11) == [
                ":twig.test SQUIT twig.test gone", ":leaf.test SQUIT leaf.test gone", ":hub.test SQUIT hub.test gone",
            ])
        #expect(state.servers.keys.sorted() == ["two.test"])
    }

    @Test mutating func aWrongPasswordOrAnUnknownServerIsClosedWithItsReason() throws {
        _ = state.connect(hub, host: "127.0.0.1")
        _ = try say("PASS wrong 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ", from: hub)
        #expect(closeReason(try say("SERVER hub.test :hub", from: hub), of: hub) == "Bad password")
        #expect(!state.isLink(hub) && state.clients[hub] == nil)

        _ = state.connect(11, host: "127.0.0.1")
        _ = try say("PASS theirs 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ", from: 11)
        #expect(closeReason(try say("SERVER stranger.test :who", from: 11), of: 11) == "Server not configured here")
        #expect(state.servers.isEmpty)
    }

    @Test mutating func aServerAlreadyOnTheNetworkCannotLinkAgain() throws {
        _ = try linkHub()
        _ = state.connect(11, host: "127.0.0.1")
        _ = try say("PASS theirs 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ", from: 11)
        let actions = try say("SERVER hub.test :again", from: 11)
        #expect(closeReason(actions, of: 11) == "ID \"hub.test\" already registered")
        #expect(state.servers["hub.test"]?.link == hub)
    }

    @Test mutating func usersOnBothServersShareAChannel() throws {
        try register(1, "alice")
        _ = try say("JOIN #chat", from: 1)
        _ = try linkHub()
        #expect(try say(":hub.test NICK rudi 1 ~rudi remote.host 1 +i :Rudi", from: hub).isEmpty)
        #expect(sent(try say(":rudi JOIN #chat\u{07}o", from: hub), to: 1) == [":rudi!~rudi@remote.host JOIN #chat"])
        #expect(
            sent(try say(":rudi PRIVMSG #chat :hi all", from: hub), to: 1) == [
                ":rudi!~rudi@remote.host PRIVMSG #chat :hi all"
            ])
        #expect(
            sent(try say(":rudi PRIVMSG alice :psst", from: hub), to: 1) == [
                ":rudi!~rudi@remote.host PRIVMSG alice psst"
            ])
        // What alice says goes to the link once, from her nickname.
        #expect(sent(try say("PRIVMSG #chat :hello rudi", from: 1), to: hub) == [":alice PRIVMSG #chat :hello rudi"])
        #expect(sent(try say("PRIVMSG rudi :just you", from: 1), to: hub) == [":alice PRIVMSG rudi :just you"])
        let names = sent(try say("NAMES #chat", from: 1), to: 1)
        #expect(names.first == ":chat.test 353 alice = #chat :alice rudi")
        // A channel with nobody behind the link is not sent to it.
        _ = try say("JOIN #quiet", from: 1)
        #expect(sent(try say("PRIVMSG #quiet :alone", from: 1), to: hub).isEmpty)
    }

    @Test mutating func changesOnEitherSideReachTheOther() throws {
        try register(1, "alice")
        _ = try say("JOIN #chat", from: 1)
        _ = try linkHub()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":hub.test NJOIN #chat :@rudi", from: hub)
        #expect(
            sent(try say(":rudi TOPIC #chat :new topic", from: hub), to: 1) == [
                ":rudi!~rudi@remote.host TOPIC #chat :new topic"
            ])
        #expect(state.channels["#chat"]?.topic == "new topic")
        #expect(sent(try say(":rudi NICK rudolf", from: hub), to: 1) == [":rudi!~rudi@remote.host NICK rudolf"])
        #expect(state.client(named: "rudolf")?.isRemote == true && state.client(named: "rudi") == nil)
        _ = try say(":rudolf AWAY :gone fishing", from: hub)
        #expect(
            sent(try say("PRIVMSG rudolf :there?", from: 1), to: 1) == [":chat.test 301 alice rudolf :gone fishing"])
        #expect(
            sent(try say(":rudolf KICK #chat alice :out", from: hub), to: 1) == [
                ":rudolf!~rudi@remote.host KICK #chat alice out"
            ])
        #expect(state.clients[1]?.channels == [])
        #expect(sent(try say("JOIN #chat", from: 1), to: hub) == [":alice JOIN #chat"])
        #expect(sent(try say("PART #chat :bye", from: 1), to: hub) == [":alice PART #chat bye"])
        #expect(sent(try say("NICK alison", from: 1), to: hub) == [":alice NICK alison"])
        #expect(sent(try say("QUIT :done", from: 1), to: hub) == [":alison QUIT :Quit: done"])
    }

    @Test mutating func aLostLinkIsANetsplitThatLocalUsersSeeAsQuits() throws {
        try register(1, "alice")
        _ = try say("JOIN #chat", from: 1)
        _ = try linkHub()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":leaf.test NICK lena 2 ~lena leaf.host 2 + :Lena", from: hub)
        _ = try say(":hub.test NJOIN #chat :rudi,+lena", from: hub)
        #expect(state.client(named: "lena")?.server == "leaf.test")

        // The leaf goes first: only its user quits, with the two servers as the reason.
        let squit = try say(":hub.test SQUIT leaf.test :link broke", from: hub)
        #expect(sent(squit, to: 1) == [":lena!~lena@leaf.host QUIT :hub.test leaf.test"])
        #expect(state.servers["leaf.test"] == nil && state.client(named: "rudi") != nil)

        let split = state.disconnect(hub, reason: "Ping timeout")
        #expect(sent(split, to: 1) == [":rudi!~rudi@remote.host QUIT :chat.test hub.test"])
        #expect(closeReason(split, of: hub) == "Ping timeout")
        #expect(state.servers.isEmpty && state.links.isEmpty)
        #expect(state.channels["#chat"]?.members == [1])
        #expect(state.client(named: "rudi") == nil, "the nick is free again")
    }

    @Test mutating func aBurstsChannelInfoComesBeforeItsMembers() throws {
        try register(1, "alice")
        _ = try linkHub()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":hub.test CHANINFO #remote +ntkl key 5 :remote topic", from: hub)
        #expect(state.channels["#remote"] == nil, "no channel without members")
        _ = try say(":hub.test NJOIN #remote :@rudi", from: hub)
        #expect(state.channels["#remote"]?.topic == "remote topic")
        #expect(state.channels["#remote"]?.members.count == 1)
        // A channel that has a topic keeps it.
        _ = try say(":hub.test CHANINFO #remote +nt :another", from: hub)
        #expect(state.channels["#remote"]?.topic == "remote topic")
    }

    @Test mutating func aBigChannelsMembersTakeSeveralNjoinLines() throws {
        state.maximumClients = 100
        for id in 101...160 {
            try register(id, "member\(id)-with-a-long-nickname".prefix(30).description)
            _ = try say("JOIN #big", from: id)
        }
        let burst = try linkHub().filter { $0.contains(" NJOIN ") }
        #expect(burst.count > 1)
        var members: [String] = []
        for line in burst {
            #expect(line.utf8.count + 2 <= 512, "\(line.utf8.count) bytes")
            members += (try IRCMessage(parsing: line)).parameters[1].split(separator: ",").map(String.init)
        }
        #expect(members.count == 60 && Set(members).count == 60)
    }

    @Test mutating func invitesAndVersionQueriesCrossTheLinkAndOperatorNoticesAreIgnored() throws {
        try register(1, "alice")
        _ = try linkHub()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        #expect(
            sent(try say(":rudi INVITE alice #secret", from: hub), to: 1) == [
                ":rudi!~rudi@remote.host INVITE alice #secret"
            ])
        let version = sent(try say(":rudi VERSION chat.test", from: hub), to: hub)
        #expect(version.first?.hasPrefix(":chat.test 351 rudi ") == true, "\(version)")
        #expect(try say(":hub.test WALLOPS :an operator's notice", from: hub).isEmpty)
        #expect(try say(":hub.test METADATA rudi host :cloaked", from: hub).isEmpty)
    }

    /// A user said to be on a server the network does not have (a token never introduced, 0,
    /// or one of a server that split away) is killed on the link that introduced it, as
    /// ngIRCd does, and never reaches the network: it used to be put on the prefix's server.
    @Test mutating func aUserOnAServerTheNetworkDoesNotHaveIsKilled() throws {
        _ = try linkHub()
        _ = try linkTwo()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":hub.test SQUIT leaf.test :gone", from: hub)
        for (nick, token) in [("ghost", 2), ("ghostaa", 77), ("ghostab", 0)] {
            let actions = try say(":hub.test NICK \(nick) 2 ga 198.18.0.98 \(token) + :Ghost", from: hub)
            #expect(sent(actions, to: hub) == [":chat.test KILL \(nick) :Unknown server"])
            #expect(sent(actions, to: 11).isEmpty, "the other link heard of \(nick)")
            #expect(state.client(named: nick) == nil)
        }
        // A user on a server the network has comes in as before.
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        #expect(state.client(named: "rudi")?.server == "hub.test")
    }

    /// A SERVER with a token that names a server still behind the link breaks the protocol:
    /// the link is split away, with an error that says why. A token freed by a split may be
    /// used again.
    @Test mutating func aTokenInUseCannotNameASecondServer() throws {
        _ = try linkHub()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":hub.test SQUIT leaf.test :gone", from: hub)
        _ = try say(":hub.test SERVER other.test 2 2 :another leaf", from: hub)
        #expect(state.servers["other.test"] != nil, "a token freed by a split could not be used again")
        let actions = try say(":hub.test SERVER third.test 2 2 :a third", from: hub)
        #expect(closeReason(actions, of: hub) == "Token 2 already names other.test")
        #expect(state.servers["third.test"] == nil && state.servers["other.test"] == nil && !state.isLink(hub))
    }

    /// The token a peer gives itself as it registers names it: its users' NICK lines use it.
    @Test mutating func aPeerNamesItselfWithTheTokenItRegisteredWith() throws {
        _ = state.connect(hub, host: "127.0.0.1")
        _ = try say("PASS theirs 0210-IRC+ chat-server|1:C P", from: hub)
        _ = try say("SERVER hub.test 1 7 :a hub that counts from 7", from: hub)
        _ = try say(":hub.test NICK seven 1 s h 7 + :Seven", from: hub)
        #expect(state.client(named: "seven")?.server == "hub.test")
        #expect(
            sent(try say(":hub.test NICK one 1 o h 1 + :One", from: hub), to: hub) == [
                ":chat.test KILL one :Unknown server"
            ])
    }

    /// A line over the limit from a link breaks the protocol: the link gets its ERROR and is
    /// split away whole, servers and users behind it, with the local users seeing the quits;
    /// and the peer can link again. (It used to close in silence and leave them all behind.)
    @Test mutating func anOverlongLineFromALinkSplitsItAway() throws {
        try register(1, "alice")
        _ = try say("JOIN #chat", from: 1)
        _ = try linkHub()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":rudi JOIN #chat", from: hub)
        let actions = state.receiveOverlongLine(from: hub)
        #expect(closeReason(actions, of: hub) == "Input line was too long")
        #expect(sent(actions, to: 1) == [":rudi!~rudi@remote.host QUIT :chat.test hub.test"])
        #expect(state.servers["hub.test"] == nil && state.servers["leaf.test"] == nil)
        #expect(state.client(named: "rudi") == nil && !state.isLink(hub))
        _ = try linkHub()
        #expect(state.isLink(hub) && state.isRegistered(hub), "the peer could not link again")
        // A client's over-long line is answered and the client stays.
        #expect(sent(state.receiveOverlongLine(from: 1), to: 1) == [":chat.test 417 alice :Input line was too long"])
        #expect(state.isRegistered(1))
    }

    /// NJOIN and JOIN pass on only the members new to a channel (a redundant one passed on
    /// made the ngIRCd hub kill the member: "Internal NJOIN error"), PART and KICK only the
    /// members who were in it.
    @Test mutating func aLineThatChangesNoMembershipIsNotPassedOn() throws {
        _ = try linkHub()
        _ = try linkTwo()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":hub.test NICK vera 1 ~vera remote.host 1 + :Vera", from: hub)
        #expect(sent(try say(":hub.test NJOIN #chat :@rudi", from: hub), to: 11) == [":hub.test NJOIN #chat @rudi"])
        #expect(sent(try say(":hub.test NJOIN #chat :@rudi", from: hub), to: 11).isEmpty)
        #expect(
            sent(try say(":hub.test NJOIN #chat :rudi,+vera", from: hub), to: 11) == [":hub.test NJOIN #chat +vera"])
        #expect(sent(try say(":vera JOIN #chat,#more", from: hub), to: 11) == [":vera JOIN #more"])
        #expect(sent(try say(":vera JOIN #chat", from: hub), to: 11).isEmpty)
        // Likewise a PART of a channel the user is not in, and a KICK of someone not in it.
        #expect(sent(try say(":vera PART #more,#nowhere :bye", from: hub), to: 11) == [":vera PART #more bye"])
        #expect(sent(try say(":vera PART #more :again", from: hub), to: 11).isEmpty)
        #expect(sent(try say(":rudi KICK #chat vera :out", from: hub), to: 11) == [":rudi KICK #chat vera out"])
        #expect(sent(try say(":rudi KICK #chat vera :out again", from: hub), to: 11).isEmpty)
    }

    @Test mutating func aNickCollisionKillsBothAndDropsNoOneInSilence() throws {
        try register(1, "alice")
        _ = try linkHub()
        let actions = try say(":hub.test NICK alice 1 ~a elsewhere 1 + :Other Alice", from: hub)
        #expect(sent(actions, to: hub) == [":chat.test KILL alice :Nick collision"])
        #expect(closeReason(actions, of: 1) == "Nick collision")
        #expect(state.client(named: "alice") == nil)
    }

    @Test mutating func aSecondServerLearnsOfTheFirstAndItsUsers() throws {
        _ = try linkHub()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        let burst = try linkTwo()
        #expect(burst.contains(":chat.test SERVER hub.test 2 2 :ngIRCd hub"))
        #expect(burst.contains(":chat.test NICK rudi 2 ~rudi remote.host 2 + Rudi"))
        // and hub.test hears of two.test.
        #expect(state.servers["two.test"] != nil)
        let lines = sent(try say(":two.test NICK zed 1 zed z.host 1 + :Zed", from: 11), to: hub)
        #expect(lines == [":chat.test NICK zed 2 zed z.host 3 + Zed"])
    }

    @Test mutating func queriesCountTheWholeNetwork() throws {
        try register(1, "alice")
        _ = try linkHub()
        _ = try say(":hub.test SERVER leaf.test 2 2 :a leaf", from: hub)
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        _ = try say(":leaf.test NICK lena 2 ~lena leaf.host 2 +i :Lena", from: hub)
        let lusers = sent(try say("LUSERS", from: 1), to: 1)
        #expect(lusers.first == ":chat.test 251 alice :There are 2 users and 1 invisible on 3 servers")
        #expect(lusers.contains(":chat.test 254 alice 0 :channels formed"))
        #expect(lusers.contains(":chat.test 255 alice :I have 1 clients and 1 servers"))
        #expect(
            sent(try say("LINKS", from: 1), to: 1) == [
                ":chat.test 364 alice chat.test chat.test :0 Test Chat",
                ":chat.test 364 alice hub.test chat.test :1 ngIRCd hub",
                ":chat.test 364 alice leaf.test hub.test :2 a leaf",
                ":chat.test 365 alice * :End of /LINKS list",
            ])
        #expect(
            sent(try say("MAP", from: 1), to: 1) == [
                ":chat.test 006 alice :chat.test [1 users]",
                ":chat.test 006 alice :  hub.test [1 users]",
                ":chat.test 006 alice :    leaf.test [1 users]",
                ":chat.test 007 alice :End of /MAP",
            ])
    }

    @Test mutating func whoisOfARemoteUserNamesItsServerAndCanAskIt() throws {
        try register(1, "alice")
        _ = try linkHub()
        _ = try say(":hub.test NICK rudi 1 ~rudi remote.host 1 + :Rudi", from: hub)
        let local = sent(try say("WHOIS rudi", from: 1), to: 1)
        #expect(local.contains(":chat.test 312 alice rudi hub.test :ngIRCd hub"))
        #expect(!local.contains { $0.contains(" 317 ") }, "idle time is the remote server's to say")
        #expect(sent(try say("WHOIS rudi rudi", from: 1), to: hub) == [":alice WHOIS hub.test rudi"])
        // Its answer comes back as numerics for alice.
        #expect(
            sent(try say(":hub.test 317 alice rudi 5 900 :seconds idle, signon time", from: hub), to: 1) == [
                ":hub.test 317 alice rudi 5 900 :seconds idle, signon time"
            ])
        // And hub.test may ask about alice.
        let answer = sent(try say(":rudi WHOIS chat.test :alice", from: hub), to: hub)
        #expect(answer.first == ":chat.test 311 rudi alice alice 127.0.0.1 * :alice here")
        #expect(answer.last == ":chat.test 318 rudi alice :End of /WHOIS list")
    }

    @Test mutating func statsShowsEachLinksTrafficAsTheIOSaidIt() throws {
        try register(1, "alice")
        _ = try linkHub()
        #expect(sent(try say("STATS l", from: 1, now: 1_000), to: 1) == [":chat.test 219 alice l :End of STATS report"])
        let traffic = ChatLinkTraffic(
            sendQueue: 12, bytesSent: 300, bytesReceived: 400, openedAt: 990, carriage: "plaintext")
        state.noteLinkTraffic([hub: traffic])
        #expect(
            sent(try say("STATS l", from: 1, now: 1_000), to: 1) == [
                ":chat.test 211 alice hub.test 12 300 400 :open 10 s, plaintext",
                ":chat.test 219 alice l :End of STATS report",
            ])
        #expect(sent(try say("STATS u", from: 1), to: 1) == [":chat.test 219 alice u :End of STATS report"])
    }

    @Test mutating func badLinesGetAnErrorAndChangeNothing() throws {
        try register(1, "alice")
        _ = try linkHub()
        #expect(sent(try say("FROB x", from: hub), to: hub) == [":chat.test 421 hub.test FROB :Unknown command"])
        #expect(
            sent(try say(":hub.test NICK rudi 1", from: hub), to: hub) == [
                ":chat.test 461 hub.test NICK :Not enough parameters"
            ], "a short NICK is a nick change, which a server cannot make")
        #expect(
            sent(try say(":hub.test NICK rudi x ~r h 1 + :R", from: hub), to: hub) == [
                ":chat.test 461 hub.test NICK :Not enough parameters"
            ])
        // A prefix that is not behind the link (alice is here) is dropped.
        #expect(try say(":alice PRIVMSG #chat :forged", from: hub).isEmpty)
        #expect(try say(":alice QUIT :forged", from: hub).isEmpty)
        #expect(state.client(named: "alice")?.isRemote == false)
    }

    @Test mutating func anOutgoingLinkRegistersWhenThePeerAnswers() throws {
        let peer = state.linkPeers[1]
        #expect(
            state.linkOpened(20, to: peer).map { "\($0)" }.count == 2)
        #expect(!state.isRegistered(20))
        #expect(try say(":out.test PASS theirs 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ", from: 20).isEmpty)
        let burst = sent(try say(":out.test SERVER out.test 1 :ngIRCd out", from: 20), to: 20)
        #expect(burst.last == ":chat.test PING chat.test")
        #expect(state.isRegistered(20))

        _ = state.linkOpened(
            21, to: ChatLinkPeer(name: "else.test", host: "h", port: 1, sentPassword: "a", expectedPassword: "b"))
        _ = try say("PASS b 0210-IRC+ x|1:", from: 21)
        #expect(
            closeReason(try say("SERVER other.test 1 :not who we called", from: 21), of: 21)
                == "Server not configured here")
        #expect(!state.isLink(21))
    }
}
