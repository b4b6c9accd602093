//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// `AWAY`, `USERHOST` and `ISON` (Protocol.md, section 8).
extension ChatServerState {
    /// With a non-empty text, marks the client away (`306`), the text cut to `AWAYLEN` bytes;
    /// without one, or with an empty one, marks it back (`305`).
    mutating func away(_ context: inout CommandContext) {
        guard let text = context.parameters.first, !text.isEmpty else {
            clients[context.id]?.awayMessage = nil
            context.send(context.replies.reply(.unaway))
            context.actions += relayAway(context.replies.client, text: nil)
            return
        }
        let message = IRCLimits.truncated(text, toBytes: IRCLimits.awayLength)
        clients[context.id]?.awayMessage = message
        context.send(context.replies.reply(.nowAway))
        context.actions += relayAway(context.replies.client, text: message)
    }

    /// `302` for the first five nicks, each that is here as `nick=+user@host` (`-` when away),
    /// in one line; `461` without a nick.
    func userHost(_ context: inout CommandContext) {
        let nicknames = Self.nicknames(in: context.parameters)
        guard !nicknames.isEmpty else {
            context.send(context.replies.reply(.needMoreParameters, "USERHOST"))
            return
        }
        let entries = nicknames.prefix(IRCLimits.nicknamesPerUserHost).compactMap(registeredClient(named:)).map {
            IRCReplyBuilder.userHostEntry(
                nickname: $0.nickname ?? "*", user: $0.userName ?? "*", host: $0.host, isAway: $0.awayMessage != nil)
        }
        context.send(context.replies.userHost(entries))
    }

    /// `303` with the nicks that are here, each once and as its owner writes it, in one line;
    /// `461` without a nick.
    func isOn(_ context: inout CommandContext) {
        let nicknames = Self.nicknames(in: context.parameters)
        guard !nicknames.isEmpty else {
            context.send(context.replies.reply(.needMoreParameters, "ISON"))
            return
        }
        var seen: Set<ChatClientID> = []
        let present = nicknames.compactMap(registeredClient(named:)).filter { seen.insert($0.id).inserted }
        context.send(context.replies.isOn(present.compactMap(\.nickname)))
    }

    /// The nicknames of a `USERHOST` or `ISON`, which clients send as separate parameters
    /// (`ISON alice bob`) or as one with spaces (`ISON :alice bob`).
    static func nicknames(in parameters: [String]) -> [String] {
        parameters.flatMap { IRCName.items(of: $0, separatedBy: " ") }
    }
}
