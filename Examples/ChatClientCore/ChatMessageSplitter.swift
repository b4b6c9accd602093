//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Splits a long `PRIVMSG` or `NOTICE` into several messages, at word boundaries, so that each
/// reaches the other users whole: the server relays a message with its own prefix in front
/// (`:nick!user@host `) and cuts whatever then passes 510 bytes, so the room for text is what
/// is left after that prefix, not after the command alone. (irssi and WeeChat split this way.)
///
/// ```swift
/// ChatMessageSplitter.split(IRCMessage(command: "PRIVMSG", parameters: ["#chat", long]), nick: "alice")
/// // [PRIVMSG #chat :first words…, PRIVMSG #chat :…last words]
/// ```
public enum ChatMessageSplitter {
    /// Bytes a server may add for the user and host parts of our prefix, as much as any
    /// server uses: `~` and a user name of `USERLEN` bytes, and a host name of 63 bytes.
    static let userAndHostAllowance = 1 + IRCLimits.userNameLength + 63

    /// `message` as the messages to send: a `PRIVMSG` or `NOTICE` whose text (a CTCP `ACTION`'s
    /// text for `/me`) does not fit once relayed becomes several, cut between words where a
    /// space is near enough, else between characters. Other messages come back cut to the
    /// line limit as before (``IRCMessage/fitted(maxLength:)``).
    public static func split(_ message: IRCMessage, nick: String) -> [IRCMessage] {
        guard ["PRIVMSG", "NOTICE"].contains(message.command), message.parameters.count == 2 else {
            return [message.fitted()]
        }
        let target = message.parameters[0]
        var text = message.parameters[1]
        var opening = "", closing = ""
        if text.hasPrefix("\u{1}ACTION ") {
            opening = "\u{1}ACTION "
            closing = "\u{1}"
            text = String(text.dropFirst(opening.count))
            if text.hasSuffix("\u{1}") { text.removeLast() }
        }
        // `:nick!user@host COMMAND target :` and the CTCP wrapping around each piece.
        let prefix = 1 + nick.utf8.count + 2 + userAndHostAllowance + 1
        let overhead =
            prefix + message.command.utf8.count + 1 + target.utf8.count + 2 + opening.utf8.count + closing.utf8.count
        let room = max(1, IRCLimits.messageLength - overhead)
        return pieces(of: text, maxBytes: room).map {
            IRCMessage(command: message.command, parameters: [target, opening + $0 + closing])
        }
    }

    /// `text` in pieces of at most `maxBytes` UTF-8 bytes each. A piece ends at the last space
    /// that fits (the space itself is dropped) unless that would leave it less than half full;
    /// then, and for a word longer than a piece, it ends between two characters.
    static func pieces(of text: String, maxBytes: Int) -> [String] {
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.utf8.count > maxBytes {
            var end = rest.startIndex
            var bytes = 0
            var lastSpace: String.Index?
            while end < rest.endIndex {
                let size = rest[end].utf8.count
                if bytes + size > maxBytes { break }
                if rest[end] == " " { lastSpace = end }
                bytes += size
                end = rest.index(after: end)
            }
            if end == rest.startIndex { end = rest.index(after: end) }  // a character wider than a piece
            if let space = lastSpace, rest.utf8.distance(from: rest.startIndex, to: space) >= maxBytes / 2 {
                pieces.append(String(rest[..<space]))
                rest = rest[rest.index(after: space)...]
            } else {
                pieces.append(String(rest[..<end]))
                rest = rest[end...]
            }
        }
        if !rest.isEmpty || pieces.isEmpty { pieces.append(String(rest)) }
        return pieces
    }
}
