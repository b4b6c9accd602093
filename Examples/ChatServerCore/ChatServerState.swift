//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// The chat server's protocol logic as a plain value: clients, nicknames and channels, and
/// what each event means for them (Protocol.md, sections 6 to 8).
///
/// Every method takes an event and returns the ``ChatServerAction``s that the I/O layer must
/// carry out, in order. Nothing here reads a clock, a socket or a file, so tests drive it
/// line by line.
///
/// ```swift
/// var state = ChatServerState(identity: identity, maximumClients: 100)
/// var actions = state.connect(1, host: "127.0.0.1")
/// actions += state.receive(try IRCMessage(parsing: "NICK alice"), from: 1, now: 0)
/// ```
public struct ChatServerState: Sendable {
    /// How the server presents itself.
    public var identity: ChatServerIdentity
    /// The most clients at once, registered or not (see ``connect(_:host:isSecure:)``).
    public var maximumClients: Int
    /// The most clients at once from one address (an IPv4 address, or an IPv6 /64); one more
    /// is refused with `Too many connections from your address`. `nil` for no limit.
    public var maximumClientsPerAddress: Int?
    /// Connected clients by id.
    public internal(set) var clients: [ChatClientID: ChatServerClient] = [:]
    /// Channels by folded name.
    public internal(set) var channels: [String: ChatChannel] = [:]
    /// Client ids by folded nickname.
    var nicknames: [String: ChatClientID] = [:]
    /// The servers this one may link with, as ngIRCd's `[Server]` blocks list them.
    public var linkPeers: [ChatLinkPeer] = []
    /// Connections to directly linked servers, registered or still registering.
    public internal(set) var links: [ChatClientID: ChatServerLink] = [:]
    /// The other servers of the network by folded name, linked directly or not.
    public internal(set) var servers: [String: ChatNetworkServer] = [:]
    /// The id the next user on another server gets: remote users count down from -1, so
    /// their ids never meet a connection's.
    var nextRemoteID = -1
    /// The token the next server this one learns of gets (this server's own is 1).
    var nextServerToken = 2
    /// Topics a link's `CHANINFO` gave for channels its `NJOIN` has not made yet (ngIRCd sends
    /// `CHANINFO` first), by folded name; at most ``pendingTopicLimit``.
    var pendingTopics: [String: (text: String, setter: String)] = [:]
    /// The most topics kept for channels not made yet.
    static let pendingTopicLimit = 1_000
    /// What each established link's connection has done, as the I/O last said
    /// (``noteLinkTraffic(_:)``), for `STATS l`.
    public internal(set) var linkTraffic: [ChatClientID: ChatLinkTraffic] = [:]
    /// The most registered clients this server has had at once (`265`).
    var mostLocalUsers = 0
    /// The most registered users the network has had at once, as this server saw it (`266`).
    var mostNetworkUsers = 0

    let caseMapping = IRCCaseMapping.ascii

    /// An empty server.
    public init(
        identity: ChatServerIdentity,
        maximumClients: Int = IRCLimits.defaultMaxClients,
        maximumClientsPerAddress: Int? = nil
    ) {
        self.identity = identity
        self.maximumClients = maximumClients
        self.maximumClientsPerAddress = maximumClientsPerAddress
    }

    /// The client's connection is now TLS (after `670` and a completed handshake).
    public mutating func tlsEstablished(_ id: ChatClientID) {
        clients[id]?.isSecure = true
    }

    /// Whether the connection has completed registration, as a client or as a server link.
    public func isRegistered(_ id: ChatClientID) -> Bool {
        if let link = links[id] { return link.phase == .established }
        return clients[id]?.isRegistered ?? false
    }

    /// Whether the connection is a link to another server (registered or not yet).
    public func isLink(_ id: ChatClientID) -> Bool {
        links[id] != nil
    }

    /// Clients connected to this server, registered or not: the users of other servers do not
    /// count.
    public var localClientCount: Int {
        clients.values.lazy.filter { !$0.isRemote }.count
    }

    /// The client with `nickname`, under the server's case mapping.
    public func client(named nickname: String) -> ChatServerClient? {
        nicknames[caseMapping.folded(nickname)].flatMap { clients[$0] }
    }

    /// The client with `nickname` if it has registered: the only kind messages reach and
    /// queries report (a connection still registering is not on the server yet).
    func registeredClient(named nickname: String) -> ChatServerClient? {
        client(named: nickname).flatMap { $0.isRegistered ? $0 : nil }
    }

    /// The client is gone, or the server is dropping it for `reason` (`Ping timeout: 180
    /// seconds`, `SendQ exceeded`, …). The members of its channels see it quit; the client is
    /// sent the closing `ERROR` line. Does nothing for a client already gone.
    public mutating func disconnect(_ id: ChatClientID, reason: String) -> [ChatServerAction] {
        if links[id] != nil { return linkLost(id, reason: reason) }
        guard let client = clients[id], !client.isRemote else { return [] }
        var actions: [ChatServerAction] = []
        if client.isRegistered {
            let peers = peers(of: id)
            if !peers.isEmpty {
                actions.append(.broadcast(peers, IRCMessage(source: client.prefix, "QUIT", reason).fitted()))
            }
            actions += relayToLinks(IRCMessage(source: client.nickname, "QUIT", reason).fitted())
        }
        remove(id)
        actions.append(.close(id, reason: reason))
        return actions
    }

    /// A line from connection `id` over the length limit. A client is told (`417`) and goes
    /// on; a link has broken the protocol, and ends as any lost link does: `ERROR`, and a
    /// netsplit of everything behind it, so that no server or user of it stays behind.
    public mutating func receiveOverlongLine(from id: ChatClientID) -> [ChatServerAction] {
        if links[id] != nil { return linkLost(id, reason: Self.overlongLineReason) }
        guard let client = clients[id], !client.isRemote else { return [] }
        return [.send(id, replies(for: client).reply(.inputTooLong))]
    }

    /// Why a link that sent an over-long line was closed.
    static let overlongLineReason = "Input line was too long"

    /// One message from a client; see Protocol.md, section 8, for what each command does.
    /// `now` is the Unix time, for topics and channel creation.
    public mutating func receive(_ message: IRCMessage, from id: ChatClientID, now: Int) -> [ChatServerAction] {
        if links[id] != nil { return receive(message, fromLink: id, now: now) }
        guard let client = clients[id], !client.isRemote else { return [] }
        var context = CommandContext(id: id, now: now, message: message, replies: replies(for: client))
        let command = message.command
        if !client.isRegistered && !Self.commandsBeforeRegistration.contains(command) {
            return [.send(id, context.replies.reply(.notRegistered))]
        }
        switch command {
        case "CAP": capability(&context)
        case "STARTTLS": startTLS(&context)
        case "PASS": pass(&context)
        case "SERVER": serverRegistration(&context)
        case "NICK": nick(&context)
        case "USER": user(&context)
        case "PING": ping(&context)
        case "PONG": break
        case "QUIT": quit(&context)
        case "JOIN": join(&context)
        case "PART": part(&context)
        case "TOPIC": topic(&context)
        case "NAMES": names(&context)
        case "LIST": list(&context)
        case "PRIVMSG", "NOTICE": privateMessage(&context)
        case "MOTD": context.send(motd(context.replies))
        case "VERSION": context.send(version(context.replies))
        case "WHO": who(&context)
        case "WHOIS": whois(&context)
        case "MODE": mode(&context)
        case "AWAY": away(&context)
        case "USERHOST": userHost(&context)
        case "ISON": isOn(&context)
        case "LUSERS": context.send(luserReplies(context.replies))
        case "LINKS": context.send(linksReplies(context.replies))
        case "MAP": context.send(mapReplies(context.replies))
        case "STATS": context.send(statsReplies(context.parameters.first ?? "", now: now, context.replies))
        default: context.send(context.replies.reply(.unknownCommand, command))
        }
        return context.actions
    }

    static let commandsBeforeRegistration: Set<String> = [
        "CAP", "NICK", "USER", "PASS", "PING", "PONG", "QUIT", "STARTTLS", "SERVER",
    ]

    /// The replies builder for `client`: the server's name, and the client's nick or `*`.
    func replies(for client: ChatServerClient) -> IRCReplyBuilder {
        IRCReplyBuilder(server: identity.serverName, client: client.nickname)
    }

    /// Every other member of every channel `id` is in who is connected here, each once, in
    /// channel then join order.
    func peers(of id: ChatClientID) -> [ChatClientID] {
        guard let client = clients[id] else { return [] }
        var seen: Set<ChatClientID> = [id]
        var peers: [ChatClientID] = []
        for key in client.channels {
            for member in channels[key]?.members ?? [] where seen.insert(member).inserted && isLocal(member) {
                peers.append(member)
            }
        }
        return peers
    }

    /// Whether `id` is a client connected here (not a user of another server).
    func isLocal(_ id: ChatClientID) -> Bool {
        clients[id].map { !$0.isRemote } ?? false
    }

    /// The members of `channel` connected here, in join order.
    func localMembers(of channel: ChatChannel) -> [ChatClientID] {
        channel.members.filter(isLocal)
    }

    /// Removes the client from its channels (dropping channels left empty) and the registry.
    mutating func remove(_ id: ChatClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        for key in client.channels {
            channels[key]?.remove(id)
            if channels[key]?.members.isEmpty == true { channels[key] = nil }
        }
        if let nickname = client.nickname, nicknames[caseMapping.folded(nickname)] == id {
            nicknames[caseMapping.folded(nickname)] = nil
        }
    }
}

/// One command being handled: who sent it, what it was, and the actions it produces.
struct CommandContext {
    let id: ChatClientID
    let now: Int
    let message: IRCMessage
    var replies: IRCReplyBuilder
    var actions: [ChatServerAction] = []

    var parameters: [String] { message.parameters }

    mutating func send(_ message: IRCMessage) {
        actions.append(.send(id, message))
    }

    mutating func send(_ messages: [IRCMessage]) {
        actions += messages.map { .send(id, $0) }
    }

    mutating func broadcast(_ clients: [ChatClientID], _ message: IRCMessage) {
        if !clients.isEmpty { actions.append(.broadcast(clients, message)) }
    }
}
