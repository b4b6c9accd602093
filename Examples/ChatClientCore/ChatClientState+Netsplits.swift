//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Netsplits: a split's quits, and the joins that heal it, are one line each.
extension ChatClientState {
    /// What `message` from the server means. The quits of a netsplit, and the joins that heal
    /// it, are gathered and shown as one line each: by ``flushNetsplits()``, or before the
    /// next line of another kind.
    public mutating func handle(_ message: IRCMessage) -> [Effect] {
        let sender = message.sourceNickname ?? ""
        let gathered: [ChatDisplayLine]? =
            switch message.command {
            case "QUIT":
                netsplits.quit(nick: sender, folded: caseMapping.folded(sender), reason: message.parameters.last ?? "")
            case "JOIN" where !caseMapping.equals(sender, nick):
                netsplits.join(
                    nick: sender, folded: caseMapping.folded(sender), channel: message.parameters.first ?? "")
            default:
                nil
            }
        if let gathered { return gathered.map { .show($0) } }
        return flushNetsplits() + interpret(message)
    }

    /// The netsplit lines gathered so far: the client calls this once it has handled what a
    /// read brought.
    public mutating func flushNetsplits() -> [Effect] {
        netsplits.flush().map { .show($0) }
    }
}
