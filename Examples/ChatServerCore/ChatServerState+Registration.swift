//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `CAP`, `STARTTLS`, `PASS`, `NICK`, `USER` and the welcome burst, and `MOTD` and `VERSION`,
/// which repeat parts of it (Protocol.md, sections 6 to 8).
extension ChatServerState {
    func capabilityList() -> String {
        identity.offersSTARTTLS ? "tls" : ""
    }

    mutating func capability(_ context: inout CommandContext) {
        guard let subcommand = context.parameters.first?.uppercased() else {
            context.send(context.replies.reply(.needMoreParameters, "CAP"))
            return
        }
        let id = context.id
        switch subcommand {
        case "LS":
            openNegotiation(id)
            context.send(context.replies.cap("LS", capabilityList()))
        case "REQ":
            guard context.parameters.count >= 2 else {
                context.send(context.replies.reply(.needMoreParameters, "CAP"))
                return
            }
            openNegotiation(id)
            let requested = context.parameters[1]
            let names = IRCName.items(of: requested, separatedBy: " ")
            let offered = IRCName.items(of: capabilityList(), separatedBy: " ")
            if !names.isEmpty && names.allSatisfy(offered.contains) {
                for name in names where !(clients[id]?.capabilities.contains(name) ?? true) {
                    clients[id]?.capabilities.append(name)
                }
                context.send(context.replies.cap("ACK", requested))
            } else {
                context.send(context.replies.cap("NAK", requested))
            }
        case "LIST":
            context.send(context.replies.cap("LIST", clients[id]?.capabilities.joined(separator: " ") ?? ""))
        case "END":
            guard clients[id]?.isRegistered == false else { return }
            clients[id]?.isNegotiatingCapabilities = false
            completeRegistrationIfReady(&context)
        default:
            context.send(context.replies.reply(.invalidCapCommand, context.parameters[0]))
        }
    }

    private mutating func openNegotiation(_ id: ChatClientID) {
        if clients[id]?.isRegistered == false {
            clients[id]?.isNegotiatingCapabilities = true
        }
    }

    mutating func startTLS(_ context: inout CommandContext) {
        guard let client = clients[context.id] else { return }
        let reason: String? =
            if !identity.offersSTARTTLS { "not offered: the server has no certificate" } else if client.isRegistered {
                "already registered"
            } else if client.isSecure { "already using TLS" } else { nil }
        if let reason {
            context.send(context.replies.startTLSFailed(reason: reason))
            return
        }
        context.send(context.replies.reply(.startTLS))
        context.actions.append(.startTLS(context.id))
    }

    /// Before registration, keeps the parameters: a server's `PASS` carries the link password
    /// and its protocol flags, and the `SERVER` line after it is checked against them.
    mutating func pass(_ context: inout CommandContext) {
        if clients[context.id]?.isRegistered == true {
            context.send(context.replies.reply(.alreadyRegistered))
        } else {
            clients[context.id]?.pass = context.parameters
        }
    }

    mutating func nick(_ context: inout CommandContext) {
        guard let client = clients[context.id] else { return }
        guard let nickname = context.parameters.first, !nickname.isEmpty else {
            context.send(context.replies.reply(.noNicknameGiven))
            return
        }
        guard IRCName.isValidNickname(nickname) else {
            context.send(context.replies.reply(.erroneousNickname, nickname))
            return
        }
        let key = caseMapping.folded(nickname)
        if let owner = nicknames[key], owner != context.id {
            context.send(context.replies.reply(.nicknameInUse, nickname))
            return
        }
        if client.nickname == nickname { return }
        if let old = client.nickname { nicknames[caseMapping.folded(old)] = nil }
        nicknames[key] = context.id
        clients[context.id]?.nickname = nickname
        if client.isRegistered {
            let change = IRCMessage(source: client.prefix, "NICK", nickname)
            context.send(change)
            context.broadcast(peers(of: context.id), change)
            context.relay(IRCMessage(source: client.nickname, "NICK", nickname), to: establishedLinks())
        } else {
            context.replies.client = nickname
            completeRegistrationIfReady(&context)
        }
    }

    mutating func user(_ context: inout CommandContext) {
        guard let client = clients[context.id] else { return }
        if client.isRegistered {
            context.send(context.replies.reply(.alreadyRegistered))
            return
        }
        guard context.parameters.count >= 4 else {
            context.send(context.replies.reply(.needMoreParameters, "USER"))
            return
        }
        clients[context.id]?.userName = context.parameters[0]
        clients[context.id]?.realName = context.parameters[3]
        completeRegistrationIfReady(&context)
    }

    /// Sends `001`–`005` and the MOTD once there is a nickname, a `USER` and no open
    /// capability negotiation.
    mutating func completeRegistrationIfReady(_ context: inout CommandContext) {
        guard var client = clients[context.id], !client.isRegistered, !client.isNegotiatingCapabilities,
            let nickname = client.nickname, let rawUser = client.userName
        else { return }
        client.userName = IRCName.sanitizedUserName(rawUser, fallback: nickname)
        client.isRegistered = true
        client.signOnTime = context.now
        client.lastMessageTime = context.now
        clients[context.id] = client
        let replies = replies(for: client)
        context.send([
            replies.welcome(network: identity.networkName, user: client.userName ?? nickname, host: client.host),
            replies.yourHost(version: identity.version),
            replies.created(identity.createdText),
            replies.myInfo(version: identity.version),
            replies.isupport(IRCISupport.tokens(network: identity.networkName, flood: identity.floodLimits)),
        ])
        context.send(motd(replies))
        countUsers()
        context.relay(introduction(of: client), to: establishedLinks())
    }

    /// `351` and the `005` of registration, the answer to `VERSION`.
    func version(_ replies: IRCReplyBuilder) -> [IRCMessage] {
        [
            replies.version(identity.version),
            replies.isupport(IRCISupport.tokens(network: identity.networkName, flood: identity.floodLimits)),
        ]
    }

    /// `375`, `372`… and `376`, or `422`.
    func motd(_ replies: IRCReplyBuilder) -> [IRCMessage] {
        guard !identity.motd.isEmpty else { return [replies.reply(.noMotd)] }
        return [replies.motdStart()] + identity.motd.map(replies.motd) + [replies.reply(.endOfMotd)]
    }
}
