//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One IRC message: optional tags, an optional source (prefix), a command and its parameters.
///
/// Parse a received line with ``init(parsing:)``; write one with ``serialized()`` (or
/// ``wireBytes()``, which adds the CR LF). The grammar and limits are those of Protocol.md:
///
/// ```swift
/// let message = try IRCMessage(parsing: Array("PRIVMSG #chat :hello, alice".utf8))
/// message.command      // "PRIVMSG"
/// message.parameters   // ["#chat", "hello, alice"]
/// ```
public struct IRCMessage: Sendable, Hashable, CustomStringConvertible {
    /// IRCv3 message tags, in the order they were given.
    public var tags: [IRCTag]
    /// Where the message comes from: a server name or `nick!user@host`; `nil` for none.
    public var source: String?
    /// The command: letters (upper case after parsing) or a three-digit numeric.
    public var command: String
    /// The parameters; only the last may be empty, hold spaces or start with `:`.
    public var parameters: [String]

    /// A message from its parts.
    public init(tags: [IRCTag] = [], source: String? = nil, command: String, parameters: [String] = []) {
        self.tags = tags
        self.source = source
        self.command = command
        self.parameters = parameters
    }

    /// A message from its parts, the parameters given one by one.
    public init(source: String? = nil, _ command: String, _ parameters: String...) {
        self.init(source: source, command: command, parameters: parameters)
    }

    /// The numeric reply this message is, if its command is one the protocol defines.
    public var numeric: IRCNumeric? { IRCNumeric.all.first { $0.code == command } }

    /// The nickname in a `nick!user@host` source, or the whole source when it is a server name.
    public var sourceNickname: String? {
        guard let source else { return nil }
        // Cut at the scalar, not the Character: a combining mark after `!` or `@` would fuse
        // with it into one Character and hide it.
        let scalars = source.unicodeScalars
        return String(scalars[..<(scalars.firstIndex { $0 == "!" || $0 == "@" } ?? scalars.endIndex)])
    }

    /// The serialized line, or a description of why it cannot be serialized.
    public var description: String {
        (try? serialized()) ?? "IRCMessage(source: \(source ?? "nil"), command: \(command), parameters: \(parameters))"
    }
}
