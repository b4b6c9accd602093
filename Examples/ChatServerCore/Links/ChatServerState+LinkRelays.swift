//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Channel and message lines from a linked server: the local members see them as from the
/// user, the other links get them as they came.
extension ChatServerState {
    /// `NJOIN <channel> :[@|+]<nick>,…`: members behind the link, as a burst gives them.
    mutating func njoin(_ message: IRCMessage, on id: ChatClientID) -> [ChatServerAction] {
        guard message.parameters.count >= 2 else { return needMoreParameters("NJOIN", on: id) }
        let name = message.parameters[0]
        var actions: [ChatServerAction] = []
        // Only the members new to the channel go on: a redundant NJOIN passed on makes ngIRCd
        // kill the member ("Internal NJOIN error").
        var joined: [String] = []
        for item in IRCName.items(of: message.parameters[1]) {
            let nickname = String(item.drop { $0 == "@" || $0 == "+" || $0 == "%" })
            guard let user = client(named: nickname), user.link == id else { continue }
            let (added, shown) = add(user, to: name, now: 0)
            actions += shown
            if added { joined.append(String(item)) }
        }
        guard !joined.isEmpty else { return actions }
        let relayed = IRCMessage(
            source: message.source, command: "NJOIN", parameters: [name, joined.joined(separator: ",")])
        return actions + relayToLinks(relayed, except: id)
    }

    /// `:<user> JOIN <channel>{,<channel>}`; ngIRCd may append `^G<modes>` to a name.
    mutating func join(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard case .user(let user) = source, let targets = message.parameters.first else { return [] }
        var actions: [ChatServerAction] = []
        // As with NJOIN, a channel the user is in already is not passed on.
        var joined: [String] = []
        for item in IRCName.items(of: targets) {
            let name = String(item.prefix { $0 != "\u{07}" })
            let (added, shown) = add(user, to: name, now: 0)
            actions += shown
            if added { joined.append(String(item)) }
        }
        guard !joined.isEmpty else { return actions }
        var relayed = message
        relayed.parameters[0] = joined.joined(separator: ",")
        return actions + relayToLinks(relayed, except: id)
    }

    /// Puts a remote user in a channel (made if new) and shows its `JOIN` to local members;
    /// `added` is false when the name is no channel's or the user is in it already.
    private mutating func add(
        _ user: ChatServerClient, to name: String, now: Int
    ) -> (added: Bool, actions: [ChatServerAction]) {
        guard IRCName.isValidChannelName(name) else { return (false, []) }
        let key = caseMapping.folded(name)
        guard clients[user.id]?.channels.contains(key) == false else { return (false, []) }
        var channel = channels[key] ?? ChatChannel(name: name, creationTime: now)
        if channels[key] == nil, let pending = pendingTopics.removeValue(forKey: key) {
            channel.topic = pending.text
            channel.topicSetter = pending.setter
            channel.topicTime = now
        }
        channel.add(user.id)
        channels[key] = channel
        clients[user.id]?.channels.append(key)
        let locals = localMembers(of: channel)
        return (true, locals.isEmpty ? [] : [.broadcast(locals, IRCMessage(source: user.prefix, "JOIN", channel.name))])
    }

    /// `:<user> PART <channel>{,<channel>} [:<reason>]`.
    mutating func part(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard case .user(let user) = source, let targets = message.parameters.first else { return [] }
        var actions: [ChatServerAction] = []
        // Only the channels the user was in go on, as with JOIN.
        var parted: [String] = []
        for name in IRCName.items(of: targets) {
            var part = IRCMessage(source: user.prefix, "PART", name)
            if message.parameters.count > 1 { part.parameters.append(message.parameters[1]) }
            let (removed, shown) = remove(user.id, from: name, telling: part.fitted())
            actions += shown
            if removed { parted.append(String(name)) }
        }
        guard !parted.isEmpty else { return actions }
        var relayed = message
        relayed.parameters[0] = parted.joined(separator: ",")
        return actions + relayToLinks(relayed, except: id)
    }

    /// `:<source> KICK <channel> <nick> [:<reason>]`: the user leaves the channel; a local
    /// user sees its own kick, as do the local members.
    mutating func kick(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard message.parameters.count >= 2, let victim = client(named: message.parameters[1]) else {
            return needMoreParameters("KICK", on: id)
        }
        var kick = IRCMessage(source: prefix(of: source), "KICK", message.parameters[0], victim.nickname ?? "*")
        if message.parameters.count > 2 { kick.parameters.append(message.parameters[2]) }
        // A kick of someone not in the channel changes nothing, and goes no further.
        let (removed, shown) = remove(victim.id, from: message.parameters[0], telling: kick.fitted())
        return removed ? shown + relayToLinks(message, except: id) : shown
    }

    /// Shows `line` to the local members of channel `name` (before the user leaves), then takes
    /// user `id` out of it; `removed` is false when the user was not in it.
    private mutating func remove(
        _ id: ChatClientID, from name: String, telling line: IRCMessage
    ) -> (removed: Bool, actions: [ChatServerAction]) {
        let key = caseMapping.folded(name)
        guard let channel = channels[key], channel.contains(id) else { return (false, []) }
        let locals = localMembers(of: channel)
        channels[key]?.remove(id)
        if channels[key]?.members.isEmpty == true { channels[key] = nil }
        clients[id]?.channels.removeAll { $0 == key }
        return (true, locals.isEmpty ? [] : [.broadcast(locals, line)])
    }

    /// `:<source> MODE <target> <modes> …`: shown to the local members of a channel as it
    /// came; a remote user's `+i`/`-i` is kept for `WHOIS` and `WHO`.
    mutating func mode(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard message.parameters.count >= 2 else { return needMoreParameters("MODE", on: id) }
        let target = message.parameters[0]
        var actions: [ChatServerAction] = []
        if IRCName.isChannel(target) {
            if let channel = channels[caseMapping.folded(target)] {
                var shown = message
                shown.source = prefix(of: source)
                let locals = localMembers(of: channel)
                if !locals.isEmpty { actions.append(.broadcast(locals, shown)) }
            }
        } else if let user = client(named: target), user.link == id {
            var adding = true
            for character in message.parameters[1] {
                switch character {
                case "+": adding = true
                case "-": adding = false
                case "i": clients[user.id]?.isInvisible = adding
                case "a":
                    if !adding {
                        clients[user.id]?.awayMessage = nil
                    } else if clients[user.id]?.awayMessage == nil {
                        clients[user.id]?.awayMessage = Self.unknownAwayText
                    }
                default: break
                }
            }
        }
        return actions + relayToLinks(message, except: id)
    }

    /// `:<source> TOPIC <channel> :<text>`.
    mutating func topic(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID, now: Int
    ) -> [ChatServerAction] {
        guard message.parameters.count >= 2 else { return needMoreParameters("TOPIC", on: id) }
        let key = caseMapping.folded(message.parameters[0])
        guard let channel = channels[key] else { return relayToLinks(message, except: id) }
        setTopic(key, message.parameters[1], by: source.name, now: now)
        let shown = IRCMessage(source: prefix(of: source), "TOPIC", channel.name, message.parameters[1]).fitted()
        let locals = localMembers(of: channel)
        return (locals.isEmpty ? [] : [.broadcast(locals, shown)]) + relayToLinks(message, except: id)
    }

    /// ngIRCd's `CHANINFO <channel> +<modes> [<key> <limit>] [:<topic>]`, sent in a burst:
    /// the topic is taken when the channel has none.
    mutating func channelInfo(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID, now: Int
    ) -> [ChatServerAction] {
        guard message.parameters.count >= 2 else { return needMoreParameters("CHANINFO", on: id) }
        let key = caseMapping.folded(message.parameters[0])
        if message.parameters.count == 3 || message.parameters.count == 5, let topic = message.parameters.last,
            !topic.isEmpty
        {
            if channels[key] == nil {
                if pendingTopics.count < Self.pendingTopicLimit { pendingTopics[key] = (topic, source.name) }
            } else if channels[key]?.topic == nil {
                setTopic(key, topic, by: source.name, now: now)
            }
        }
        return relayToLinks(message, except: id)
    }

    private mutating func setTopic(_ key: String, _ text: String, by setter: String, now: Int) {
        channels[key]?.topic = text.isEmpty ? nil : text
        channels[key]?.topicSetter = setter
        channels[key]?.topicTime = now
    }

    /// `:<user> AWAY [:<text>]`.
    mutating func away(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard case .user(let user) = source else { return [] }
        let text = message.parameters.first ?? ""
        clients[user.id]?.awayMessage = text.isEmpty ? nil : text
        return relayAway(user.nickname ?? "*", text: text.isEmpty ? nil : text, except: id)
    }

    /// `:<user> PRIVMSG|NOTICE <target> :<text>`: to the local members of a channel and on to
    /// the other links with members; to a local user; or on toward a remote one.
    mutating func privateMessage(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID
    ) -> [ChatServerAction] {
        guard message.parameters.count >= 2 else { return [] }
        let target = message.parameters[0]
        var shown = message
        shown.source = prefix(of: source)
        if IRCName.isChannel(target) {
            guard let channel = channels[caseMapping.folded(target)] else { return [] }
            let locals = localMembers(of: channel)
            let onward = links(toMembersOf: channel, except: id)
            return (locals.isEmpty ? [] : [.broadcast(locals, shown)])
                + (onward.isEmpty ? [] : [.broadcast(onward, message)])
        }
        guard let recipient = client(named: target) else { return [] }
        if let link = recipient.link { return link == id ? [] : [.send(link, message)] }
        return [.send(recipient.id, shown)]
    }

    /// `:<user> WHOIS <server> :<nick>`: answered here when it names this server, else sent
    /// on toward the server it names.
    func whois(
        _ message: IRCMessage, from source: LinkSource, on id: ChatClientID, now: Int
    ) -> [ChatServerAction] {
        guard case .user(let asker) = source, message.parameters.count >= 2 else {
            return needMoreParameters("WHOIS", on: id)
        }
        if !(Self.folded(server: message.parameters[0]) == Self.folded(server: identity.serverName)) {
            guard let link = whoisLink(for: message.parameters[0]), link.id != id else { return [] }
            return [.send(link.id, message)]
        }
        let replies = IRCReplyBuilder(server: identity.serverName, client: asker.nickname ?? "*")
        var lines: [IRCMessage] = []
        let list = message.parameters[1]
        for nickname in IRCName.items(of: list).prefix(IRCLimits.nicknamesPerWhois) {
            if let target = registeredClient(named: nickname) {
                lines += whoisReplies(about: target, to: asker.id, now: now, replies)
            } else {
                lines.append(replies.reply(.noSuchNick, echoing: nickname))
            }
        }
        lines.append(replies.reply(.endOfWhois, echoing: list))
        return lines.map { .send(id, $0) }
    }

    /// `:<user> INVITE <nick> <channel>`: shown to a local user, passed on toward a remote one.
    func invite(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard case .user = source, message.parameters.count >= 2, let invited = client(named: message.parameters[0])
        else { return [] }
        if let link = invited.link { return link == id ? [] : [.send(link, message)] }
        var shown = message
        shown.source = prefix(of: source)
        return [.send(invited.id, shown)]
    }

    /// `:<user> VERSION <server>`: answered with `351` and `005` for the user when it names
    /// this server, else passed on toward the server it names.
    func version(_ message: IRCMessage, from source: LinkSource, on id: ChatClientID) -> [ChatServerAction] {
        guard case .user(let asker) = source else { return [] }
        if let target = message.parameters.first,
            Self.folded(server: target) != Self.folded(server: identity.serverName)
        {
            guard let link = whoisLink(for: target), link.id != id else { return [] }
            return [.send(link.id, message)]
        }
        let replies = IRCReplyBuilder(server: identity.serverName, client: asker.nickname ?? "*")
        return version(replies).map { .send(id, $0) }
    }

    /// A numeric reply for a user: delivered to a local one, passed on toward a remote one.
    func numeric(_ message: IRCMessage, on id: ChatClientID) -> [ChatServerAction] {
        guard let target = message.parameters.first, let recipient = client(named: target) else { return [] }
        if let link = recipient.link { return link == id ? [] : [.send(link, message)] }
        return [.send(recipient.id, message)]
    }

    /// The prefix local clients see for a line from `source`: `nick!user@host` or the server.
    func prefix(of source: LinkSource) -> String {
        switch source {
        case .server(let name): name
        case .user(let user): user.prefix
        }
    }
}
