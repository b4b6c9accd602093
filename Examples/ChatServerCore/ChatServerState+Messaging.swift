//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `PRIVMSG` and `NOTICE` to channels and nicknames (Protocol.md, section 8). A `PRIVMSG` to
/// a nickname that is away is answered with `301` and the away message.
extension ChatServerState {
    mutating func privateMessage(_ context: inout CommandContext) {
        let command = context.message.command
        let isNotice = command == "NOTICE"
        guard let client = clients[context.id] else { return }
        guard let targets = context.parameters.first, !targets.isEmpty else {
            if !isNotice { context.send(context.replies.noRecipient(command: command)) }
            return
        }
        guard context.parameters.count > 1, !context.parameters[1].isEmpty else {
            if !isNotice { context.send(context.replies.reply(.noTextToSend)) }
            return
        }
        let text = context.parameters[1]
        clients[context.id]?.lastMessageTime = context.now
        for (index, target) in IRCName.items(of: targets).enumerated() {
            if index >= IRCLimits.targetsPerMessage {
                if !isNotice { context.send(context.replies.reply(.tooManyTargets, target)) }
                continue
            }
            let relayed = IRCMessage(source: client.prefix, command: command, parameters: [target, text]).fitted()
            if IRCName.isChannel(target) {
                guard let channel = channels[caseMapping.folded(target)] else {
                    if !isNotice { context.send(context.replies.reply(.noSuchChannel, target)) }
                    continue
                }
                guard channel.contains(context.id) else {
                    if !isNotice { context.send(context.replies.reply(.cannotSendToChannel, target)) }
                    continue
                }
                context.broadcast(localMembers(of: channel).filter { $0 != context.id }, relayed)
                context.relay(serverForm(of: relayed, from: client), to: links(toMembersOf: channel))
            } else if let recipient = registeredClient(named: target) {
                if let link = recipient.link {
                    context.actions.append(.send(link, serverForm(of: relayed, from: client)))
                } else {
                    context.actions.append(.send(recipient.id, relayed))
                }
                if !isNotice, let awayMessage = recipient.awayMessage {
                    context.send(context.replies.away(nickname: recipient.nickname ?? target, text: awayMessage))
                }
            } else if !isNotice {
                context.send(context.replies.reply(.noSuchNick, target))
            }
        }
    }

    /// `message` as a link carries it: from the sender's nickname alone.
    func serverForm(of message: IRCMessage, from client: ChatServerClient) -> IRCMessage {
        var message = message
        message.source = client.nickname
        return message
    }
}
