//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `JOIN`, `PART`, `TOPIC`, `NAMES` and `LIST` (Protocol.md, section 8).
extension ChatServerState {
    mutating func join(_ context: inout CommandContext) {
        guard let targets = context.parameters.first, !targets.isEmpty else {
            context.send(context.replies.reply(.needMoreParameters, "JOIN"))
            return
        }
        if targets == "0" {
            for key in clients[context.id]?.channels ?? [] {
                leave(key, as: channels[key]?.name ?? key, reason: nil, &context)
            }
            return
        }
        for name in IRCName.items(of: targets) {
            join(name, &context)
        }
    }

    private mutating func join(_ name: String, _ context: inout CommandContext) {
        guard IRCName.isValidChannelName(name), let client = clients[context.id] else {
            context.send(context.replies.reply(.noSuchChannel, name))
            return
        }
        let key = caseMapping.folded(name)
        if client.channels.contains(key) { return }
        guard client.channels.count < IRCLimits.channelsPerClient else {
            context.send(context.replies.reply(.tooManyChannels, name))
            return
        }
        var channel = channels[key] ?? ChatChannel(name: name, creationTime: context.now)
        channel.add(context.id)
        channels[key] = channel
        clients[context.id]?.channels.append(key)
        context.broadcast(localMembers(of: channel), IRCMessage(source: client.prefix, "JOIN", name))
        context.relay(IRCMessage(source: client.nickname, "JOIN", name), to: establishedLinks())
        if let topic = channel.topic {
            context.send(context.replies.reply(.topic, name, topic))
            context.send(context.replies.reply(.topicWhoTime, name, channel.topicSetter, String(channel.topicTime)))
        }
        context.send(namesReplies(for: channel, as: name, context.replies))
    }

    mutating func part(_ context: inout CommandContext) {
        guard let targets = context.parameters.first, !targets.isEmpty else {
            context.send(context.replies.reply(.needMoreParameters, "PART"))
            return
        }
        let reason = context.parameters.count > 1 ? context.parameters[1] : nil
        for name in IRCName.items(of: targets) {
            let key = caseMapping.folded(name)
            guard channels[key] != nil else {
                context.send(context.replies.reply(.noSuchChannel, name))
                continue
            }
            guard clients[context.id]?.channels.contains(key) == true else {
                context.send(context.replies.reply(.notOnChannel, name))
                continue
            }
            leave(key, as: name, reason: reason, &context)
        }
    }

    /// Sends `PART` to every member, the leaver included, and removes the leaver.
    private mutating func leave(_ key: String, as name: String, reason: String?, _ context: inout CommandContext) {
        guard let client = clients[context.id], let channel = channels[key] else { return }
        var part = IRCMessage(source: client.prefix, "PART", name)
        if let reason { part.parameters.append(reason) }
        context.broadcast(localMembers(of: channel), part.fitted())
        part.source = client.nickname
        context.relay(part.fitted(), to: establishedLinks())
        channels[key]?.remove(context.id)
        if channels[key]?.members.isEmpty == true { channels[key] = nil }
        clients[context.id]?.channels.removeAll { $0 == key }
    }

    mutating func topic(_ context: inout CommandContext) {
        guard let name = context.parameters.first, let client = clients[context.id] else {
            context.send(context.replies.reply(.needMoreParameters, "TOPIC"))
            return
        }
        let key = caseMapping.folded(name)
        guard let channel = channels[key] else {
            context.send(context.replies.reply(.noSuchChannel, name))
            return
        }
        guard channel.contains(context.id) else {
            context.send(context.replies.reply(.notOnChannel, name))
            return
        }
        guard context.parameters.count > 1 else {
            if let topic = channel.topic {
                context.send(context.replies.reply(.topic, name, topic))
                context.send(context.replies.reply(.topicWhoTime, name, channel.topicSetter, String(channel.topicTime)))
            } else {
                context.send(context.replies.reply(.noTopic, name))
            }
            return
        }
        let text = IRCLimits.truncated(context.parameters[1], toBytes: IRCLimits.topicLength)
        channels[key]?.topic = text.isEmpty ? nil : text
        channels[key]?.topicSetter = client.nickname ?? "*"
        channels[key]?.topicTime = context.now
        context.broadcast(localMembers(of: channel), IRCMessage(source: client.prefix, "TOPIC", name, text).fitted())
        context.relay(IRCMessage(source: client.nickname, "TOPIC", name, text).fitted(), to: establishedLinks())
    }

    mutating func names(_ context: inout CommandContext) {
        guard let targets = context.parameters.first, !targets.isEmpty else {
            for channel in channels.values.sorted(by: { $0.name < $1.name }) {
                context.send(Array(namesReplies(for: channel, as: channel.name, context.replies).dropLast()))
            }
            context.send(context.replies.reply(.endOfNames, "*"))
            return
        }
        for name in IRCName.items(of: targets) {
            if let channel = channels[caseMapping.folded(name)] {
                context.send(namesReplies(for: channel, as: name, context.replies))
            } else {
                context.send(context.replies.reply(.endOfNames, name))
            }
        }
    }

    /// `353` lines for the channel's members, then `366`.
    func namesReplies(for channel: ChatChannel, as name: String, _ replies: IRCReplyBuilder) -> [IRCMessage] {
        let nicknames = channel.members.compactMap { clients[$0]?.nickname }
        return replies.names(channel: name, nicknames: nicknames) + [replies.reply(.endOfNames, name)]
    }

    mutating func list(_ context: inout CommandContext) {
        context.send(context.replies.reply(.listStart, "Channel"))
        let listed: [(String, ChatChannel)]
        if let targets = context.parameters.first, !targets.isEmpty {
            listed = IRCName.items(of: targets).compactMap { name in
                channels[caseMapping.folded(String(name))].map { (String(name), $0) }
            }
        } else {
            listed = channels.values.sorted { $0.name < $1.name }.map { ($0.name, $0) }
        }
        for (name, channel) in listed {
            context.send(
                context.replies.list(channel: name, memberCount: channel.members.count, topic: channel.topic ?? "")
                    .fitted())
        }
        context.send(context.replies.reply(.listEnd))
    }
}
