//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import StreamTaskKit

/// What the server knows about one connected client.
public struct ChatServerClient: Sendable, Hashable {
    /// The connection's number.
    public let id: ChatClientID
    /// The client's address as it appears in prefixes (`127.0.0.1`, `0::1`).
    public let host: String
    /// What per-address limits count the client under: its IPv4 address, or its IPv6 /64.
    public let addressGroup: PeerAddressGroup?
    /// The nickname, once the client has given a valid one that is free.
    public var nickname: String?
    /// The user name from `USER`, sanitized (Protocol.md, "Names").
    public var userName: String?
    /// The real name from `USER`.
    public var realName = ""
    /// Whether registration has completed (`001` sent).
    public var isRegistered = false
    /// Whether capability negotiation is open (`CAP LS`/`REQ` seen, `CAP END` not yet).
    public var isNegotiatingCapabilities = false
    /// Capabilities acknowledged with `CAP ACK`.
    public var capabilities: [String] = []
    /// Whether the connection uses TLS.
    public var isSecure: Bool
    /// The `+i` user mode.
    public var isInvisible = false
    /// The away message set with `AWAY`, or `nil` while the client is here.
    public var awayMessage: String?
    /// When registration completed, in Unix time (`WHOIS`'s sign-on time).
    public var signOnTime = 0
    /// When the client last sent a `PRIVMSG` or `NOTICE` (or registered), in Unix time: what
    /// `WHOIS`'s idle time counts from.
    public var lastMessageTime = 0
    /// The folded names of the channels the client is a member of, in the order joined.
    public var channels: [String] = []
    /// For a user on another server of the network: that server's name; `nil` for a client
    /// connected here.
    public internal(set) var server: String?
    /// For a user on another server: the direct link it is reached through.
    public internal(set) var link: ChatClientID?
    /// Links between this server and the user's: 0 for a client connected here.
    public internal(set) var hopCount = 0
    /// The parameters of the connection's `PASS`, kept until it registers: a server's carry
    /// the link password and protocol flags.
    var pass: [String] = []

    /// A client that has just connected from `host`.
    public init(id: ChatClientID, host: String, isSecure: Bool) {
        self.id = id
        self.host = IRCName.displayHost(host)
        self.addressGroup = PeerAddressGroup(ipAddress: host)
        self.isSecure = isSecure
    }

    /// A user on another server, introduced by a link's `NICK` line. Its id is the state's
    /// own (negative, so it never meets a connection's).
    init(
        remote id: ChatClientID, nickname: String, userName: String, host: String, realName: String,
        server: String, link: ChatClientID, hopCount: Int, now: Int
    ) {
        self.id = id
        self.host = host
        self.addressGroup = nil
        self.isSecure = false
        self.nickname = nickname
        self.userName = userName
        self.realName = realName
        self.isRegistered = true
        self.server = server
        self.link = link
        self.hopCount = hopCount
        self.signOnTime = now
        self.lastMessageTime = now
    }

    /// Whether the user is on another server of the network.
    public var isRemote: Bool { server != nil }

    /// `nick!user@host`, the source of what the client sends to others.
    public var prefix: String {
        "\(nickname ?? "*")!\(userName ?? "*")@\(host)"
    }
}
