//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// A link's life: registration with `PASS` and `SERVER` in either direction, the burst that
/// tells the peer the network, and the netsplit when it ends (Protocol.md, "Server links").
extension ChatServerState {
    /// The protocol version and flags of this server's `PASS`: RFC 2813's `0210`, ngIRCd's
    /// `IRC+` extensions, with `CHANINFO` (`C`) as the only flag.
    static let linkProtocol = ["0210-IRC+", "chat-server|1:C", "P"]

    /// This server connected out to `peer` on connection `id`: it sends its `PASS` and
    /// `SERVER` first, and the link registers when the peer's arrive.
    public mutating func linkOpened(_ id: ChatClientID, to peer: ChatLinkPeer) -> [ChatServerAction] {
        links[id] = ChatServerLink(id: id, peer: peer, phase: .connecting)
        return registrationLines(for: peer).map { .send(id, $0) }
    }

    /// `PASS` and `SERVER`, as this server introduces itself to `peer`.
    func registrationLines(for peer: ChatLinkPeer) -> [IRCMessage] {
        [
            IRCMessage(command: "PASS", parameters: [peer.sentPassword] + Self.linkProtocol),
            IRCMessage(command: "SERVER", parameters: [identity.serverName, "1", serverInfo]),
        ]
    }

    /// Why a server's link is refused when no peer of that name is configured (ngIRCd's words).
    static let notConfiguredReason = "Server not configured here"
    /// Why a server's link is refused when its password is not the one expected.
    static let badPasswordReason = "Bad password"

    /// This server's description in `SERVER` lines: the network's name.
    var serverInfo: String { identity.networkName }

    /// A `SERVER` from a connection that has not registered: a server linking in. It must be
    /// a configured peer with the right password, and new to the network; then this server
    /// answers with its own `PASS` and `SERVER` and the burst.
    mutating func serverRegistration(_ context: inout CommandContext) {
        guard let client = clients[context.id], !client.isRegistered, client.nickname == nil else {
            context.send(context.replies.reply(.alreadyRegistered))
            return
        }
        guard context.parameters.count >= 2 else {
            context.send(context.replies.reply(.needMoreParameters, "SERVER"))
            return
        }
        let name = context.parameters[0]
        guard let peer = linkPeers.first(where: { Self.folded(server: $0.name) == Self.folded(server: name) }) else {
            context.actions += drop(context.id, reason: Self.notConfiguredReason)
            return
        }
        guard client.pass.first == peer.expectedPassword else {
            context.actions += drop(context.id, reason: Self.badPasswordReason)
            return
        }
        guard !knowsServer(name) else {
            context.actions += drop(context.id, reason: "ID \"\(name)\" already registered")
            return
        }
        clients[context.id] = nil
        var link = ChatServerLink(id: context.id, peer: peer, phase: .connecting)
        link.pass = client.pass
        links[context.id] = link
        context.send(registrationLines(for: peer))
        context.actions += establish(
            context.id, info: context.parameters.last ?? "", token: Self.ownToken(in: context.parameters))
    }

    /// The peer's `SERVER` on a link this server opened: the name must be the one configured
    /// and the password the one its `PASS` gave.
    mutating func linkRegistration(_ message: IRCMessage, on id: ChatClientID) -> [ChatServerAction] {
        guard let link = links[id], message.parameters.count >= 2 else { return [] }
        guard Self.folded(server: message.parameters[0]) == Self.folded(server: link.name) else {
            return drop(id, reason: Self.notConfiguredReason)
        }
        guard link.pass.first == link.peer.expectedPassword else { return drop(id, reason: Self.badPasswordReason) }
        guard !knowsServer(link.name) else {
            return drop(id, reason: "ID \"\(link.name)\" already registered")
        }
        return establish(id, info: message.parameters.last ?? "", token: Self.ownToken(in: message.parameters))
    }

    /// The token a peer gives itself in its registering `SERVER <name> <hopcount> <token>
    /// :<info>`: 1 when it gives none (`SERVER <name> <hopcount> :<info>`), as ngIRCd does.
    static func ownToken(in parameters: [String]) -> Int {
        parameters.count >= 4 ? Int(parameters[2]) ?? 1 : 1
    }

    /// The link is registered: the peer becomes a server of the network, learns the network
    /// in a burst, and the rest of the network learns of it.
    private mutating func establish(_ id: ChatClientID, info: String, token: Int) -> [ChatServerAction] {
        guard var link = links[id] else { return [] }
        link.phase = .established
        link.tokens[token] = link.name
        links[id] = link
        let server = ChatNetworkServer(
            name: link.name, hopCount: 1, info: info, link: id, uplink: identity.serverName, token: nextServerToken)
        nextServerToken += 1
        servers[Self.folded(server: link.name)] = server
        return burst(to: id)
            + relayToLinks(
                IRCMessage(
                    source: identity.serverName, command: "SERVER",
                    parameters: [server.name, "2", String(server.token), info]),
                except: id)
    }

    /// Everything the network holds, for a link that just registered: the servers behind this
    /// one, every user, every channel with its members and topic, who is away; then a `PING`,
    /// whose answer tells that the peer has taken it all.
    func burst(to id: ChatClientID) -> [ChatServerAction] {
        let me = identity.serverName
        var lines: [IRCMessage] = []
        for server in servers.values.filter({ $0.link != id }).sorted(by: {
            ($0.hopCount, $0.token) < ($1.hopCount, $1.token)
        }) {
            lines.append(
                IRCMessage(
                    source: server.uplink, command: "SERVER",
                    parameters: [server.name, String(server.hopCount + 1), String(server.token), server.info]))
        }
        let users = clients.values.filter { $0.isRegistered && $0.link != id }.sorted { $0.id < $1.id }
        lines += users.map(introduction(of:))
        let channelInfo = links[id]?.peerSupports("C") == true
        for channel in channels.values.sorted(by: { $0.name < $1.name }) {
            let members = channel.members.filter { clients[$0]?.link != id }.compactMap { clients[$0]?.nickname }
            guard !members.isEmpty else { continue }
            // ngIRCd's order: CHANINFO (modes and topic) first, then the members.
            if channelInfo, let topic = channel.topic {
                lines.append(IRCMessage(source: me, "CHANINFO", channel.name, "+n", topic).fitted())
            }
            lines += Self.njoinLines(from: me, channel: channel.name, members: members)
            if !channelInfo, let topic = channel.topic {
                lines.append(IRCMessage(source: me, "TOPIC", channel.name, topic).fitted())
            }
        }
        // Away is in the NICK line's modes; a chat-server also gets the text.
        if links[id]?.carriesAwayText == true {
            for user in users {
                if let away = user.awayMessage, let nickname = user.nickname {
                    lines.append(IRCMessage(source: nickname, "AWAY", away))
                }
            }
        }
        lines.append(IRCMessage(source: me, "PING", me))
        return lines.map { .send(id, $0) }
    }

    /// `NJOIN` lines for `members` of `channel`, as many as it takes to keep each within the
    /// 512 bytes of a line.
    static func njoinLines(from server: String, channel: String, members: [String]) -> [IRCMessage] {
        // ":server NJOIN #channel :" and CR LF, with room to spare.
        let room = IRCLimits.lineLength - server.utf8.count - channel.utf8.count - 20
        var lines: [IRCMessage] = []
        var current: [String] = []
        var length = 0
        for member in members {
            if !current.isEmpty, length + 1 + member.utf8.count > room {
                lines.append(IRCMessage(source: server, "NJOIN", channel, current.joined(separator: ",")))
                current = []
                length = 0
            }
            length += (current.isEmpty ? 0 : 1) + member.utf8.count
            current.append(member)
        }
        if !current.isEmpty {
            lines.append(IRCMessage(source: server, "NJOIN", channel, current.joined(separator: ",")))
        }
        return lines
    }

    /// The server-form `NICK` that introduces `user` to a link: `NICK <nick> <hopcount>
    /// <user> <host> <server token> <modes> :<real name>`.
    func introduction(of user: ChatServerClient) -> IRCMessage {
        IRCMessage(
            source: identity.serverName, command: "NICK",
            parameters: [
                user.nickname ?? "*", String(user.hopCount + 1), user.userName ?? "*", user.host,
                String(token(of: user.server)),
                "+" + (user.isInvisible ? "i" : "") + (user.awayMessage == nil ? "" : "a"),
                user.realName,
            ])
    }

    /// Closes a connection that failed to register as a server, saying why in `ERROR`.
    private mutating func drop(_ id: ChatClientID, reason: String) -> [ChatServerAction] {
        clients[id] = nil
        links[id] = nil
        return [.close(id, reason: reason)]
    }

    /// The link on connection `id` is gone (closed, timed out, or dropped for `reason`): a
    /// netsplit. The peer and every server behind it leave the network, with their users.
    mutating func linkLost(_ id: ChatClientID, reason: String) -> [ChatServerAction] {
        guard let link = links.removeValue(forKey: id) else { return [] }
        var actions: [ChatServerAction] = [.close(id, reason: reason)]
        guard link.phase == .established else { return actions }
        actions += split(link.name, reason: reason, from: nil)
        return actions
    }

    /// Server `name` and everything behind it left the network (a lost link here, or a
    /// `SQUIT` from `origin`): their users quit with the reason IRC users know, `<uplink>
    /// <server>`, and the other links hear the `SQUIT`.
    mutating func split(_ name: String, reason: String, from origin: ChatClientID?) -> [ChatServerAction] {
        guard let server = servers[Self.folded(server: name)] else { return [] }
        let gone = serversBehind(server.name)
        let quitReason = "\(server.uplink) \(server.name)"
        var actions: [ChatServerAction] = []
        let folded = Set(gone.map(Self.folded(server:)))
        for user in clients.values.filter({ $0.server.map { folded.contains(Self.folded(server: $0)) } ?? false })
            .sorted(by: { $0.id > $1.id })
        {
            actions += removeRemote(user.id, quit: quitReason)
        }
        for name in folded { servers[name] = nil }
        // The links' tokens for those servers name no one now.
        for (id, var link) in links {
            link.tokens = link.tokens.filter { !folded.contains(Self.folded(server: $0.value)) }
            links[id] = link
        }
        // One SQUIT per server gone, the furthest first, each from the server itself, as
        // ngIRCd sends them.
        for lost in gone.reversed() {
            actions += relayToLinks(IRCMessage(source: lost, "SQUIT", lost, reason).fitted(), except: origin)
        }
        return actions
    }

    /// `name` and the servers it introduced, and theirs, in turn.
    func serversBehind(_ name: String) -> [String] {
        var result = [name]
        var index = 0
        while index < result.count {
            let uplink = Self.folded(server: result[index])
            result += servers.values.filter { Self.folded(server: $0.uplink) == uplink }.map(\.name).sorted()
            index += 1
        }
        return result
    }

    /// A remote user leaves the network: local members of its channels see it quit.
    mutating func removeRemote(_ id: ChatClientID, quit reason: String) -> [ChatServerAction] {
        guard let user = clients[id], user.isRemote else { return [] }
        let peers = peers(of: id)
        remove(id)
        return peers.isEmpty ? [] : [.broadcast(peers, IRCMessage(source: user.prefix, "QUIT", reason).fitted())]
    }
}
