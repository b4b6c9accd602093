//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `LUSERS`, `LINKS` and `MAP`: counts and servers of the whole network (Protocol.md, section
/// 8), as this server knows them.
extension ChatServerState {
    /// Registered users on the whole network, this server's and the others'.
    var networkUserCount: Int {
        clients.values.lazy.filter(\.isRegistered).count
    }

    /// Remembers the most users seen at once, here and on the network, for `265` and `266`.
    mutating func countUsers() {
        mostLocalUsers = max(mostLocalUsers, clients.values.lazy.filter { $0.isRegistered && !$0.isRemote }.count)
        mostNetworkUsers = max(mostNetworkUsers, networkUserCount)
    }

    /// `251`, `254`, `255`, `265` and `266`.
    func luserReplies(_ replies: IRCReplyBuilder) -> [IRCMessage] {
        let users = clients.values.filter(\.isRegistered)
        let invisible = users.lazy.filter(\.isInvisible).count
        let local = users.lazy.filter { !$0.isRemote }.count
        return [
            replies.reply(
                .luserClient,
                "There are \(users.count - invisible) users and \(invisible) invisible on \(servers.count + 1) servers"),
            replies.reply(.luserChannels, String(channels.count)),
            replies.reply(.luserMe, "I have \(local) clients and \(establishedLinks().count) servers"),
            replies.reply(
                .localUsers, String(local), String(mostLocalUsers),
                "Current local users \(local), max \(mostLocalUsers)"),
            replies.reply(
                .globalUsers, String(users.count), String(mostNetworkUsers),
                "Current global users \(users.count), max \(mostNetworkUsers)"),
        ]
    }

    /// `364` for this server and each other, nearest first, then `365`.
    func linksReplies(_ replies: IRCReplyBuilder) -> [IRCMessage] {
        let me = identity.serverName
        var lines = [replies.reply(.links, me, me, "0 \(serverInfo)").fitted()]
        for server in servers.values.sorted(by: { ($0.hopCount, $0.name) < ($1.hopCount, $1.name) }) {
            lines.append(
                replies.reply(.links, server.name, server.uplink, "\(server.hopCount) \(server.info)").fitted())
        }
        return lines + [replies.reply(.endOfLinks, "*")]
    }

    /// The I/O's figures for each link's connection, as they are now.
    public mutating func noteLinkTraffic(_ traffic: [ChatClientID: ChatLinkTraffic]) {
        linkTraffic = traffic
    }

    /// `STATS l`: a `211` per direct link, then `219`; any other query gets `219` alone.
    func statsReplies(_ query: String, now: Int, _ replies: IRCReplyBuilder) -> [IRCMessage] {
        var lines: [IRCMessage] = []
        if query.lowercased() == "l" {
            for id in establishedLinks() {
                guard let link = links[id], let traffic = linkTraffic[id] else { continue }
                lines.append(
                    replies.reply(
                        .statsLinkInfo, link.name, String(traffic.sendQueue), String(traffic.bytesSent),
                        String(traffic.bytesReceived), "open \(max(0, now - traffic.openedAt)) s, \(traffic.carriage)"
                    ).fitted())
            }
        }
        return lines + [replies.reply(.endOfStats, query.isEmpty ? "*" : query)]
    }

    /// `006` for each server as a tree under this one, with its user count, then `007`.
    func mapReplies(_ replies: IRCReplyBuilder) -> [IRCMessage] {
        var lines: [IRCMessage] = []
        func visit(_ name: String, depth: Int) {
            let folded = Self.folded(server: name)
            let isMe = folded == Self.folded(server: identity.serverName)
            let users = clients.values.lazy.filter {
                $0.isRegistered && ($0.server.map { Self.folded(server: $0) == folded } ?? isMe)
            }.count
            lines.append(replies.reply(.map, String(repeating: "  ", count: depth) + "\(name) [\(users) users]"))
            for server in servers.values.filter({ Self.folded(server: $0.uplink) == folded }).sorted(by: {
                $0.name < $1.name
            }) {
                visit(server.name, depth: depth + 1)
            }
        }
        visit(identity.serverName, depth: 0)
        return lines + [replies.reply(.mapEnd)]
    }
}
