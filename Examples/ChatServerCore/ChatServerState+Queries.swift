//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `PING`, `QUIT`, `WHO` and `MODE` (Protocol.md, section 8).
extension ChatServerState {
    mutating func ping(_ context: inout CommandContext) {
        guard let token = context.parameters.first, !token.isEmpty else {
            context.send(context.replies.reply(.noOrigin))
            return
        }
        context.send(context.replies.pong(token))
    }

    mutating func quit(_ context: inout CommandContext) {
        let reason = context.parameters.first.map { "Quit: \($0)" } ?? "Client Quit"
        context.actions += disconnect(context.id, reason: reason)
    }

    mutating func who(_ context: inout CommandContext) {
        guard let mask = context.parameters.first, !mask.isEmpty else {
            context.send(context.replies.reply(.needMoreParameters, "WHO"))
            return
        }
        let members: [(channel: String, client: ChatServerClient)]
        if IRCName.isChannel(mask) {
            members = (channels[caseMapping.folded(mask)]?.members ?? []).compactMap { clients[$0] }.map { (mask, $0) }
        } else if let client = registeredClient(named: mask) {
            members = [("*", client)]
        } else {
            members = []
        }
        for (channel, member) in members {
            context.send(
                context.replies.whoReply(
                    channel: channel, user: member.userName ?? "*", host: member.host,
                    nickname: member.nickname ?? "*", realName: member.realName, isAway: member.awayMessage != nil))
        }
        context.send(context.replies.reply(.endOfWho, mask))
    }

    mutating func mode(_ context: inout CommandContext) {
        guard let target = context.parameters.first, !target.isEmpty, let client = clients[context.id] else {
            context.send(context.replies.reply(.needMoreParameters, "MODE"))
            return
        }
        let change = context.parameters.count > 1 ? context.parameters[1] : nil
        if IRCName.isChannel(target) {
            guard let channel = channels[caseMapping.folded(target)] else {
                context.send(context.replies.reply(.noSuchChannel, target))
                return
            }
            switch change {
            case nil:
                context.send(context.replies.reply(.channelModeIs, target, "+n"))
                context.send(context.replies.reply(.creationTime, target, String(channel.creationTime)))
            case "b", "+b":
                context.send(context.replies.reply(.endOfBanList, target))
            default:
                context.send(context.replies.reply(.channelOperatorPrivilegesNeeded, target))
            }
            return
        }
        guard let nickname = client.nickname, caseMapping.equals(nickname, target) else {
            context.send(context.replies.reply(.usersDontMatch))
            return
        }
        guard let change else {
            context.send(context.replies.reply(.userModeIs, client.isInvisible ? "+i" : "+"))
            return
        }
        userMode(change, nickname: nickname, &context)
    }

    /// Applies `+i`/`-i` and echoes what changed; any other letter gets `501`.
    private mutating func userMode(_ change: String, nickname: String, _ context: inout CommandContext) {
        var adding = true
        var applied = ""
        var appliedSign: Character?
        var unknown = false
        for character in change {
            switch character {
            case "+": adding = true
            case "-": adding = false
            case "i":
                guard clients[context.id]?.isInvisible != adding else { continue }
                clients[context.id]?.isInvisible = adding
                let sign: Character = adding ? "+" : "-"
                if appliedSign != sign {
                    applied.append(sign)
                    appliedSign = sign
                }
                applied.append("i")
            default: unknown = true
            }
        }
        if unknown { context.send(context.replies.reply(.userModeUnknownFlag)) }
        if !applied.isEmpty {
            context.send(IRCMessage(source: nickname, "MODE", nickname, applied))
            context.relay(IRCMessage(source: nickname, "MODE", nickname, applied), to: establishedLinks())
        }
    }
}
