//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Which of the user's lines the server is known to have, so that a dropped connection never
/// loses one silently.
///
/// IRC acknowledges nothing the user says, but a server answers a `PING` after every line sent
/// before it, in order. So after lines go out the client sends a `PING` with a token of its
/// own; its `PONG` confirms every line before it. When the connection ends, the lines not
/// confirmed may not have reached the server: they are kept, with any the client could not
/// write at all, for the user to send again (`/resend`). A plain value: the client asks it what
/// to send and tells it what came.
struct ChatDeliveryLedger {
    /// The user's lines written on this connection and not confirmed yet, oldest first.
    private(set) var unconfirmed: [IRCMessage] = []
    /// The confirmation asked for and not answered yet: its token, and how many of the oldest
    /// unconfirmed lines its answer confirms.
    private var pending: (token: String, covers: Int)?
    private var asked = 0
    /// Lines a dropped connection may have lost, or that could not be written, kept for
    /// `/resend`, oldest first.
    private(set) var undelivered: [IRCMessage] = []

    /// Whether a confirmation was asked for and is not answered yet.
    var awaitsConfirmation: Bool { pending != nil }

    /// One of the user's lines was written.
    mutating func written(_ message: IRCMessage) {
        unconfirmed.append(message)
    }

    /// The `PING` that asks the server to confirm the lines written so far, unless one is
    /// already on its way or there is nothing to confirm.
    mutating func confirmationRequest() -> IRCMessage? {
        guard pending == nil, !unconfirmed.isEmpty else { return nil }
        asked += 1
        let token = "stk-delivered-\(asked)"
        pending = (token, unconfirmed.count)
        return IRCMessage(command: "PING", parameters: [token])
    }

    /// A message from the server: whether it was the answer to our confirmation (then the
    /// lines before it are confirmed, and the message is the ledger's, not the user's).
    mutating func received(_ message: IRCMessage) -> Bool {
        guard message.command == "PONG", let pending, message.parameters.last == pending.token else { return false }
        unconfirmed.removeFirst(pending.covers)
        self.pending = nil
        return true
    }

    /// The server has every line written so far (it answered the client's `QUIT`, which came
    /// after them).
    mutating func allConfirmed() {
        unconfirmed = []
        pending = nil
    }

    /// A line could not be written: it is kept for `/resend`.
    mutating func notWritten(_ message: IRCMessage) {
        undelivered.append(message)
    }

    /// The connection ended: the lines it did not confirm are kept for `/resend`; returns them.
    mutating func connectionEnded() -> [IRCMessage] {
        let lost = unconfirmed
        undelivered += lost
        unconfirmed = []
        pending = nil
        return lost
    }

    /// Takes the lines kept for `/resend`, oldest first.
    mutating func takeUndelivered() -> [IRCMessage] {
        defer { undelivered = [] }
        return undelivered
    }
}
