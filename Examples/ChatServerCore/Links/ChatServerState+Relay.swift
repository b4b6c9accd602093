//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Where the network's news goes: to the established links, and to the links behind which a
/// channel's members or a message's recipient are (Protocol.md, "Server links").
extension ChatServerState {
    /// Established links in the order they connected, without `excluded` (the link the news
    /// came from: it knows already).
    func establishedLinks(except excluded: ChatClientID? = nil) -> [ChatClientID] {
        links.values.filter { $0.phase == .established && $0.id != excluded }.map(\.id).sorted()
    }

    /// `message` to every established link but `excluded`.
    func relayToLinks(_ message: IRCMessage, except excluded: ChatClientID? = nil) -> [ChatServerAction] {
        let targets = establishedLinks(except: excluded)
        return targets.isEmpty ? [] : [.broadcast(targets, message)]
    }

    /// That `nickname` is away with `text`, or back (`nil`), for every established link but
    /// `excluded`: `AWAY` with the text to a chat-server, the user mode `+a`/`-a` to others.
    func relayAway(_ nickname: String, text: String?, except excluded: ChatClientID? = nil) -> [ChatServerAction] {
        let targets = establishedLinks(except: excluded)
        let texting = targets.filter { links[$0]?.carriesAwayText == true }
        let moding = targets.filter { links[$0]?.carriesAwayText != true }
        var actions: [ChatServerAction] = []
        if !texting.isEmpty {
            let away = IRCMessage(source: nickname, command: "AWAY", parameters: text.map { [$0] } ?? [])
            actions.append(.broadcast(texting, away))
        }
        if !moding.isEmpty {
            actions.append(
                .broadcast(moding, IRCMessage(source: nickname, "MODE", nickname, text == nil ? "-a" : "+a")))
        }
        return actions
    }

    /// The away text of a remote user whose server says only that it is away (`+a`).
    static let unknownAwayText = "Away"

    /// The links behind which `channel` has members, each once, without `excluded`: a
    /// channel message goes only where someone can read it.
    func links(toMembersOf channel: ChatChannel, except excluded: ChatClientID? = nil) -> [ChatClientID] {
        var seen: Set<ChatClientID> = []
        var result: [ChatClientID] = []
        for member in channel.members {
            if let link = clients[member]?.link, link != excluded, seen.insert(link).inserted {
                result.append(link)
            }
        }
        return result
    }

    /// The token this server uses for `server` in the lines it sends: 1 for itself.
    func token(of server: String?) -> Int {
        guard let server, let known = servers[Self.folded(server: server)] else { return 1 }
        return known.token
    }

    /// A server name as the network compares them: case does not matter.
    static func folded(server name: String) -> String {
        name.lowercased()
    }

    /// Whether `name` is this server or one of the network's.
    func knowsServer(_ name: String) -> Bool {
        Self.folded(server: name) == Self.folded(server: identity.serverName)
            || servers[Self.folded(server: name)] != nil
    }
}

extension CommandContext {
    /// `message` to each of `links` (server-form lines for the rest of the network).
    mutating func relay(_ message: IRCMessage, to links: [ChatClientID]) {
        if !links.isEmpty { actions.append(.broadcast(links, message)) }
    }
}
