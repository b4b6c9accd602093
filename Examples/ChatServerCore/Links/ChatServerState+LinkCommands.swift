//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Who a line from a link comes from: a server of the network, or a user on one.
enum LinkSource {
    case server(String)
    case user(ChatServerClient)

    /// The name the line's prefix gives when it is passed on.
    var name: String {
        switch self {
        case .server(let name): name
        case .user(let user): user.nickname ?? "*"
        }
    }
}

/// One line from a linked server (Protocol.md, "Server links"): what it changes in the
/// network, who here sees it, and which other links it goes on to.
extension ChatServerState {
    mutating func receive(_ message: IRCMessage, fromLink id: ChatClientID, now: Int) -> [ChatServerAction] {
        guard let link = links[id] else { return [] }
        guard link.phase == .established else { return register(message, on: id) }
        guard let source = source(of: message, on: id) else {
            // A prefix that is not behind this link: RFC 2813 drops the line.
            return []
        }
        let me = identity.serverName
        switch message.command {
        case "SERVER": return introduceServer(message, from: source, on: id)
        case "NICK":
            return message.parameters.count >= 7
                ? introduceUser(message, on: id, now: now) : nickChange(message, from: source, on: id)
        case "NJOIN": return njoin(message, on: id)
        case "JOIN": return join(message, from: source, on: id)
        case "PART": return part(message, from: source, on: id)
        case "QUIT": return quit(message, from: source, on: id)
        case "KILL": return kill(message, from: source, on: id)
        case "SQUIT": return squit(message, on: id)
        case "KICK": return kick(message, from: source, on: id)
        case "MODE": return mode(message, from: source, on: id)
        case "TOPIC": return topic(message, from: source, on: id, now: now)
        case "CHANINFO": return channelInfo(message, from: source, on: id, now: now)
        case "AWAY": return away(message, from: source, on: id)
        case "PRIVMSG", "NOTICE": return privateMessage(message, from: source, on: id)
        case "WHOIS": return whois(message, from: source, on: id, now: now)
        case "INVITE": return invite(message, from: source, on: id)
        case "VERSION": return version(message, from: source, on: id)
        case "WALLOPS", "METADATA", "SERVICE", "SQUERY":
            // Operator notices, services and metadata, which this server has none of.
            return []
        case "PING":
            return [.send(id, IRCMessage(source: me, "PONG", me, message.parameters.first ?? me))]
        case "PONG", "ERROR":
            return []
        default:
            if message.command.count == 3, message.command.allSatisfy(\.isNumber) {
                return numeric(message, on: id)
            }
            let replies = IRCReplyBuilder(server: me, client: link.name)
            return [.send(id, replies.reply(.unknownCommand, message.command))]
        }
    }

    /// Lines on a link this server opened, before it registered: the peer's `PASS`, then its
    /// `SERVER`.
    private mutating func register(_ message: IRCMessage, on id: ChatClientID) -> [ChatServerAction] {
        switch message.command {
        case "PASS":
            links[id]?.pass = message.parameters
            return []
        case "SERVER":
            return linkRegistration(message, on: id)
        case "ERROR":
            return linkLost(id, reason: message.parameters.first ?? "ERROR")
        default:
            // ngIRCd says its 005 and 376 after SERVER; anything else waits for registration.
            return []
        }
    }

    /// The source of `message`: no prefix is the link's own server; a prefix must name a
    /// server or a user behind this link.
    func source(of message: IRCMessage, on id: ChatClientID) -> LinkSource? {
        guard let link = links[id] else { return nil }
        guard let prefix = message.sourceNickname else { return .server(link.name) }
        if let server = servers[Self.folded(server: prefix)] {
            return server.link == id ? .server(server.name) : nil
        }
        if let user = client(named: prefix), user.link == id { return .user(user) }
        return nil
    }

    /// `:<uplink> SERVER <name> <hopcount> <token> :<info>`: a server behind the link.
    private mutating func introduceServer(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID
    ) -> [ChatServerAction] {
        guard case .server(let uplink) = source, message.parameters.count >= 4,
            let hopCount = Int(message.parameters[1]), let peerToken = Int(message.parameters[2])
        else { return needMoreParameters("SERVER", on: id) }
        let name = message.parameters[0]
        guard !knowsServer(name) else {
            return linkLost(id, reason: "ID \"\(name)\" already registered")
        }
        // A token names one server on a link (RFC 2813, 4.1.2): one that names a server still
        // behind it would move that server's users, so the link has broken the protocol.
        if let holder = links[id]?.tokens[peerToken], knowsServer(holder) {
            return linkLost(id, reason: "Token \(peerToken) already names \(holder)")
        }
        let server = ChatNetworkServer(
            name: name, hopCount: hopCount, info: message.parameters.last ?? "", link: id, uplink: uplink,
            token: nextServerToken)
        nextServerToken += 1
        servers[Self.folded(server: name)] = server
        links[id]?.tokens[peerToken] = name
        return relayToLinks(
            IRCMessage(
                source: uplink, command: "SERVER",
                parameters: [name, String(hopCount + 1), String(server.token), server.info]),
            except: id)
    }

    /// `NICK <nick> <hopcount> <user> <host> <token> <modes> :<real name>`: a user behind the
    /// link. A nickname the network has already is a collision, resolved as ngIRCd does:
    /// both users are killed, here and on every link, and no one is dropped in silence. The
    /// nickname is taken as the peer gives it (other servers allow other lengths and first
    /// characters), as long as it cannot be read as something else.
    private mutating func introduceUser(_ message: IRCMessage, on id: ChatClientID, now: Int) -> [ChatServerAction] {
        let parameters = message.parameters
        guard let hopCount = Int(parameters[1]), let token = Int(parameters[4]),
            IRCName.isAcceptableRemoteNickname(parameters[0])
        else { return needMoreParameters("NICK", on: id) }
        let nickname = parameters[0]
        // The token must name a server the network has, behind this link: a token the peer
        // never introduced (or one of a server that split away) names no one, and the user
        // cannot be put anywhere. ngIRCd kills such a nick; so does this server, on the link
        // that introduced it.
        guard let server = links[id]?.tokens[token], servers[Self.folded(server: server)]?.link == id else {
            return [.send(id, IRCMessage(source: identity.serverName, "KILL", nickname, Self.unknownServerReason))]
        }
        if let existing = client(named: nickname) {
            return collision(existing, with: nickname)
        }
        let remoteID = nextRemoteID
        nextRemoteID -= 1
        var user = ChatServerClient(
            remote: remoteID, nickname: nickname, userName: parameters[2], host: parameters[3],
            realName: parameters[6], server: server, link: id, hopCount: hopCount, now: now)
        user.isInvisible = parameters[5].contains("i")
        if parameters[5].contains("a") { user.awayMessage = Self.unknownAwayText }
        clients[remoteID] = user
        nicknames[caseMapping.folded(nickname)] = remoteID
        countUsers()
        return relayToLinks(introduction(of: user), except: id)
    }

    /// What a user introduced on an unknown server is killed with (ngIRCd's words).
    static let unknownServerReason = "Unknown server"

    /// Two users with one nickname: `KILL` goes to every link (the one that introduced the
    /// second removes it, the others the first), and the first leaves here.
    private mutating func collision(_ existing: ChatServerClient, with nickname: String) -> [ChatServerAction] {
        let reason = "Nick collision"
        return relayToLinks(IRCMessage(source: identity.serverName, "KILL", nickname, reason))
            + removeUser(existing.id, reason: reason)
    }

    /// Takes user `id` off the network without telling the links (they hear a `KILL` or a
    /// split): a remote user quits for the local members of its channels, a local client is
    /// closed with `reason`.
    mutating func removeUser(_ id: ChatClientID, reason: String) -> [ChatServerAction] {
        guard let user = clients[id] else { return [] }
        if user.isRemote { return removeRemote(id, quit: reason) }
        let peers = peers(of: id)
        remove(id)
        var actions: [ChatServerAction] = []
        if !peers.isEmpty {
            actions.append(.broadcast(peers, IRCMessage(source: user.prefix, "QUIT", reason).fitted()))
        }
        actions.append(.close(id, reason: reason))
        return actions
    }

    /// `:<old> NICK <new>`: a remote user's new nickname.
    private mutating func nickChange(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID
    ) -> [ChatServerAction] {
        guard case .user(let user) = source, let nickname = message.parameters.first,
            IRCName.isAcceptableRemoteNickname(nickname), let old = user.nickname
        else { return needMoreParameters("NICK", on: id) }
        if let existing = client(named: nickname), existing.id != user.id {
            return collision(existing, with: nickname) + removeUser(user.id, reason: "Nick collision")
        }
        nicknames[caseMapping.folded(old)] = nil
        nicknames[caseMapping.folded(nickname)] = user.id
        clients[user.id]?.nickname = nickname
        var actions: [ChatServerAction] = []
        let peers = peers(of: user.id)
        if !peers.isEmpty { actions.append(.broadcast(peers, IRCMessage(source: user.prefix, "NICK", nickname))) }
        return actions + relayToLinks(IRCMessage(source: old, "NICK", nickname), except: id)
    }

    /// `:<user> QUIT :<reason>`.
    private mutating func quit(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID
    ) -> [ChatServerAction] {
        guard case .user(let user) = source else { return [] }
        let reason = message.parameters.first ?? ""
        return removeRemote(user.id, quit: reason)
            + relayToLinks(IRCMessage(source: user.nickname, "QUIT", reason).fitted(), except: id)
    }

    /// `KILL <nick> :<path>`: the user leaves the network, wherever it is.
    private mutating func kill(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID
    ) -> [ChatServerAction] {
        guard message.parameters.count >= 1, let victim = client(named: message.parameters[0]) else { return [] }
        let path = message.parameters.count > 1 ? message.parameters[1] : source.name
        let relayed = IRCMessage(source: source.name, "KILL", victim.nickname ?? "*", path).fitted()
        return relayToLinks(relayed, except: id) + removeUser(victim.id, reason: "Killed (\(source.name) (\(path)))")
    }

    /// `SQUIT <server> :<reason>`: that server and those behind it leave; the link's own name
    /// ends the link.
    private mutating func squit(_ message: IRCMessage, on id: ChatClientID) -> [ChatServerAction] {
        guard let name = message.parameters.first, let link = links[id] else {
            return needMoreParameters("SQUIT", on: id)
        }
        let reason = message.parameters.count > 1 ? message.parameters[1] : link.name
        if Self.folded(server: name) == Self.folded(server: identity.serverName)
            || Self.folded(server: name) == Self.folded(server: link.name)
        {
            return linkLost(id, reason: reason)
        }
        guard servers[Self.folded(server: name)]?.link == id else { return [] }
        return split(name, reason: reason, from: id)
    }

    /// `461` to the link for a line it got wrong.
    func needMoreParameters(_ command: String, on id: ChatClientID) -> [ChatServerAction] {
        let replies = IRCReplyBuilder(server: identity.serverName, client: links[id]?.name ?? "*")
        return [.send(id, replies.reply(.needMoreParameters, command))]
    }
}
