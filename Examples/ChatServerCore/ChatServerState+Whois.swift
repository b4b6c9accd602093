//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `WHOIS` (Protocol.md, section 8).
extension ChatServerState {
    /// `WHOIS [<server>] <nick>{,<nick>}`: for each of the first four nicks, what
    /// ``whoisReplies(about:to:now:_:)`` says, or `401`; then one `318` naming the list as sent.
    /// `431` without a nick. A nick is looked up as written: a mask (`al*`) matches no one.
    ///
    /// This server knows the whole network, so it answers for users of other servers too, as
    /// ngIRCd does. Only the two-parameter form that names another server (or a remote user,
    /// as `/whois nick nick` does) goes to that server, which answers itself, idle time
    /// included.
    func whois(_ context: inout CommandContext) {
        let list = context.parameters.count > 1 ? context.parameters[1] : context.parameters.first ?? ""
        if context.parameters.count > 1, let link = whoisLink(for: context.parameters[0]),
            let asker = clients[context.id]?.nickname
        {
            context.actions.append(.send(link.id, IRCMessage(source: asker, "WHOIS", link.server, list)))
            return
        }
        let nicknames = IRCName.items(of: list)
        guard !nicknames.isEmpty else {
            context.send(context.replies.reply(.noNicknameGiven))
            return
        }
        for nickname in nicknames.prefix(IRCLimits.nicknamesPerWhois) {
            if let target = registeredClient(named: nickname) {
                context.send(whoisReplies(about: target, to: context.id, now: context.now, context.replies))
            } else {
                context.send(context.replies.reply(.noSuchNick, echoing: nickname))
            }
        }
        context.send(context.replies.reply(.endOfWhois, echoing: list))
    }

    /// What `WHOIS` tells client `viewer` about `target`: `311`, `319` (when it shows a
    /// channel), `312`, `301` (when away), `671` (when its connection uses TLS) and `317`.
    func whoisReplies(
        about target: ChatServerClient, to viewer: ChatClientID, now: Int, _ replies: IRCReplyBuilder
    ) -> [IRCMessage] {
        let nickname = target.nickname ?? "*"
        var lines = [
            replies.whoisUser(
                nickname: nickname, user: target.userName ?? "*", host: target.host, realName: target.realName)
        ]
        lines += replies.whoisChannels(nickname: nickname, channels: channelNames(of: target, shownTo: viewer))
        if let server = target.server {
            let info = servers[Self.folded(server: server)]?.info ?? ""
            lines.append(replies.reply(.whoisServer, nickname, server, info).fitted())
        } else {
            lines.append(replies.whoisServer(nickname: nickname, info: identity.networkName))
        }
        if let awayMessage = target.awayMessage {
            lines.append(replies.away(nickname: nickname, text: awayMessage))
        }
        // Whether a remote user's connection is secure, and how long it has been idle, only
        // its own server knows (`WHOIS <server> <nick>` asks it).
        if target.isRemote { return lines }
        if target.isSecure {
            lines.append(replies.reply(.whoisSecure, nickname))
        }
        lines.append(
            replies.whoisIdle(
                nickname: nickname, seconds: max(0, now - target.lastMessageTime), signOnTime: target.signOnTime))
        return lines
    }

    /// The link toward the server that the first parameter of a two-parameter `WHOIS` names,
    /// by its name or as one of its users (`/whois nick nick`), with that server's name;
    /// `nil` when that is this server.
    func whoisLink(for target: String) -> (id: ChatClientID, server: String)? {
        if let server = servers[Self.folded(server: target)] { return (server.link, server.name) }
        if let user = registeredClient(named: target), let link = user.link, let server = user.server {
            return (link, server)
        }
        return nil
    }

    /// The names of `target`'s channels, in the order it joined them, that client `viewer` may
    /// see: all of them, unless `target` is invisible (`+i`); then only those `viewer` is in
    /// too (all of them when it asks about itself), so `+i` hides where someone is from those
    /// not there.
    func channelNames(of target: ChatServerClient, shownTo viewer: ChatClientID) -> [String] {
        target.channels.compactMap { key in
            guard let channel = channels[key] else { return nil }
            let hidden = target.isInvisible && !channel.contains(viewer)
            return hidden ? nil : channel.name
        }
    }
}
