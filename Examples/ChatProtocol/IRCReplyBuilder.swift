//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Builds the server's replies to one client, in the shapes Protocol.md gives.
///
/// ```swift
/// let replies = IRCReplyBuilder(server: "chat.example", client: "bob")
/// replies.reply(.noSuchNick, "carol")  // :chat.example 401 bob carol :No such nick/channel
/// ```
public struct IRCReplyBuilder: Sendable, Hashable {
    /// The server's name, the source of every reply.
    public var server: String
    /// The client's nickname, or `*` before it has one: the first parameter of every numeric.
    public var client: String

    /// A builder for replies from `server` to `client` (`nil`: not yet known, written `*`).
    public init(server: String, client: String?) {
        self.server = server
        self.client = client ?? "*"
    }

    /// A numeric reply: the client, `parameters`, then the numeric's fixed text if it has one.
    public func reply(_ numeric: IRCNumeric, _ parameters: String...) -> IRCMessage {
        IRCMessage(
            source: server, command: numeric.code, parameters: [client] + parameters + (numeric.text.map { [$0] } ?? [])
        )
    }

    /// A numeric whose parameter after the client echoes `subject`, something the client sent
    /// (a nick, a list of them): as sent when it can be, cut at a character boundary when the
    /// line would pass 512 bytes, and `*` when it cannot be a middle parameter (empty, holding a
    /// space or starting with `:`). A reply that could not be sent would leave its client
    /// waiting for it.
    public func reply(_ numeric: IRCNumeric, echoing subject: String) -> IRCMessage {
        let sendable =
            subject.isEmpty || subject.utf8.contains(UInt8(ascii: " ")) || subject.hasPrefix(":") ? "*" : subject
        let line = reply(numeric, sendable)
        let excess = line.messageLength - IRCLimits.messageLength
        guard excess > 0 else { return line }
        let cut = IRCLimits.truncated(sendable, toBytes: sendable.utf8.count - excess)
        return reply(numeric, cut.isEmpty ? "*" : cut)
    }

    /// `001`: `Welcome to the <network> IRC Network, <nick>!<user>@<host>`.
    public func welcome(network: String, user: String, host: String) -> IRCMessage {
        reply(.welcome, "Welcome to the \(network) IRC Network, \(client)!\(user)@\(host)")
    }

    /// `002`: `Your host is <server>, running version <version>`.
    public func yourHost(version: String) -> IRCMessage {
        reply(.yourHost, "Your host is \(server), running version \(version)")
    }

    /// `003`: `This server was created <date>`.
    public func created(_ date: String) -> IRCMessage {
        reply(.created, "This server was created \(date)")
    }

    /// `004`: the server's name, version, user modes (`i`) and channel modes (`n`).
    public func myInfo(version: String) -> IRCMessage {
        reply(.myInfo, server, version, "i", "n")
    }

    /// `005` with `tokens` (see ``IRCISupport``).
    public func isupport(_ tokens: [String]) -> IRCMessage {
        IRCMessage(
            source: server, command: IRCNumeric.isupport.code,
            parameters: [client] + tokens + [IRCNumeric.isupport.text ?? ""])
    }

    /// `351`: the server's version and name.
    public func version(_ version: String) -> IRCMessage {
        reply(.version, version, server)
    }

    /// `375`, the line before the MOTD.
    public func motdStart() -> IRCMessage {
        reply(.motdStart, "- \(server) Message of the day - ")
    }

    /// `372`, one line of the MOTD.
    public func motd(_ line: String) -> IRCMessage {
        reply(.motd, "- \(line)").fitted()
    }

    /// `411`: `No recipient given (<command>)`.
    public func noRecipient(command: String) -> IRCMessage {
        reply(.noRecipient, "No recipient given (\(command))")
    }

    /// `691`: `STARTTLS failed (<reason>)`.
    public func startTLSFailed(reason: String) -> IRCMessage {
        reply(.startTLSFailed, "STARTTLS failed (\(reason))")
    }

    /// `352` for one member: hop count 0, and `H` (here) or `G` (gone: away) as its flags.
    public func whoReply(
        channel: String, user: String, host: String, nickname: String, realName: String, isAway: Bool = false
    ) -> IRCMessage {
        reply(.whoReply, channel, user, host, server, nickname, isAway ? "G" : "H", "0 \(realName)").fitted()
    }

    /// `322` for one channel.
    public func list(channel: String, memberCount: Int, topic: String) -> IRCMessage {
        reply(.list, channel, String(memberCount), topic)
    }

    /// `353` lines listing `nicknames`, as many per line as fit in 512 bytes.
    public func names(channel: String, nicknames: [String]) -> [IRCMessage] {
        packed(nicknames) { reply(.namReply, "=", channel, $0.joined(separator: " ")) }
    }

    /// `items` spread over as few lines as they need: `line` makes a line of some items, and
    /// each line gets as many, in order, as fit in 512 bytes (at least one).
    func packed(_ items: [String], into line: ([String]) -> IRCMessage) -> [IRCMessage] {
        var lines: [IRCMessage] = []
        var current: [String] = []
        for item in items {
            if !current.isEmpty && line(current + [item]).messageLength > IRCLimits.messageLength {
                lines.append(line(current))
                current = []
            }
            current.append(item)
        }
        if !current.isEmpty { lines.append(line(current)) }
        return lines
    }

    /// A `CAP` reply: `CAP <client> <subcommand> <capabilities>`.
    public func cap(_ subcommand: String, _ capabilities: String) -> IRCMessage {
        IRCMessage(source: server, "CAP", client, subcommand, capabilities)
    }

    /// The answer to `PING <token>`.
    public func pong(_ token: String) -> IRCMessage {
        IRCMessage(source: server, "PONG", server, token)
    }

    /// The server's `PING` to an idle client.
    public func ping() -> IRCMessage {
        IRCMessage(source: server, "PING", server)
    }

    /// The last line before the server closes a connection:
    /// `ERROR :Closing Link: <host> (<reason>)`.
    public static func closingLink(host: String, reason: String) -> IRCMessage {
        IRCMessage("ERROR", "Closing Link: \(host) (\(reason))").fitted()
    }
}
