//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Replies about users: away messages, `USERHOST`, `ISON` and `WHOIS` (Protocol.md, section 8).
extension IRCReplyBuilder {
    /// `301`: `<nick>` is away, with its away message (cut to fit the line).
    public func away(nickname: String, text: String) -> IRCMessage {
        reply(.away, nickname, text).fitted()
    }

    /// One entry of a `302`: `<nick>=+<user>@<host>`, with `-` in place of `+` when away.
    public static func userHostEntry(nickname: String, user: String, host: String, isAway: Bool) -> String {
        "\(nickname)=\(isAway ? "-" : "+")\(user)@\(host)"
    }

    /// `302` with the `entries` (see ``userHostEntry(nickname:user:host:isAway:)``) that fit in
    /// one line, in order; an empty list for none.
    public func userHost(_ entries: [String]) -> IRCMessage {
        oneLine(entries) { reply(.userHost, $0.joined(separator: " ")) }
    }

    /// `303` with the `nicknames` that fit in one line, in order; an empty list for none.
    public func isOn(_ nicknames: [String]) -> IRCMessage {
        oneLine(nicknames) { reply(.isOn, $0.joined(separator: " ")) }
    }

    /// `311`: `<nick> <user> <host> * :<real name>`, the real name cut to fit the line.
    public func whoisUser(nickname: String, user: String, host: String, realName: String) -> IRCMessage {
        reply(.whoisUser, nickname, user, host, "*", realName).fitted()
    }

    /// `319` lines listing `channels`, as many per line as fit in 512 bytes; none for no channels.
    public func whoisChannels(nickname: String, channels: [String]) -> [IRCMessage] {
        packed(channels) { reply(.whoisChannels, nickname, $0.joined(separator: " ")) }
    }

    /// `312`: `<nick>` is on this server, described by `info` (cut to fit the line).
    public func whoisServer(nickname: String, info: String) -> IRCMessage {
        reply(.whoisServer, nickname, server, info).fitted()
    }

    /// `317`: seconds since `<nick>` was last active, and when it signed on, in Unix time.
    public func whoisIdle(nickname: String, seconds: Int, signOnTime: Int) -> IRCMessage {
        reply(.whoisIdle, nickname, String(seconds), String(signOnTime))
    }

    /// The line `line` makes of as many of `items` as fit in 512 bytes (which clients that
    /// expect one reply line per query need), or of none.
    private func oneLine(_ items: [String], _ line: ([String]) -> IRCMessage) -> IRCMessage {
        packed(items, into: line).first ?? line([])
    }
}
