//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One thing to show the user, before it is given a time and colours.
public struct ChatDisplayLine: Sendable, Hashable {
    /// What kind of line this is; it picks the layout and the colour.
    public enum Kind: Sendable, Hashable {
        /// A message from `nick` to a channel.
        case message
        /// A message from `nick` to us alone.
        case privateMessage
        /// A `/me` action by `nick`.
        case action
        /// A notice from `nick` or the server.
        case notice
        /// Someone joined, left, quit or changed nickname.
        case presence
        /// Information from the server or the client (`***`).
        case info
        /// An error reply or a local error (`!!!`).
        case error
        /// Something we sent ourselves.
        case own
    }

    /// The kind of line.
    public var kind: Kind
    /// The channel it belongs to, if any.
    public var channel: String?
    /// Who it comes from, if anyone.
    public var nick: String?
    /// The text.
    public var text: String

    /// A line from its parts.
    public init(_ kind: Kind, channel: String? = nil, nick: String? = nil, _ text: String) {
        self.kind = kind
        self.channel = channel
        self.nick = nick
        self.text = text
    }
}
