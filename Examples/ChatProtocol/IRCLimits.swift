//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The limits of the chat protocol, as Protocol.md's "Limits" section and the `005`
/// (ISUPPORT) tokens state them.
public enum IRCLimits {
    /// Bytes in a line, CR LF included.
    public static let lineLength = 512
    /// Bytes in a message without its CR LF and without its tag section.
    public static let messageLength = lineLength - 2
    /// Bytes in a tag section, the `@` and the space after it included.
    public static let tagSectionLength = 8191
    /// Parameters in one message.
    public static let parameterCount = 15
    /// Bytes in a nickname (`NICKLEN`).
    public static let nicknameLength = 30
    /// Bytes in a channel name, its `#` included (`CHANNELLEN`).
    public static let channelNameLength = 50
    /// Bytes in a user name (`USERLEN`).
    public static let userNameLength = 18
    /// Bytes in a topic (`TOPICLEN`).
    public static let topicLength = 390
    /// Bytes in an away message (`AWAYLEN`).
    public static let awayLength = 200
    /// Channels one client may be a member of (`CHANLIMIT`).
    public static let channelsPerClient = 20
    /// Targets in one `PRIVMSG` or `NOTICE` (`TARGMAX`).
    public static let targetsPerMessage = 4
    /// Nicknames one `WHOIS` answers for (`TARGMAX`); the rest are ignored.
    public static let nicknamesPerWhois = 4
    /// Nicknames one `USERHOST` asks about; the rest are ignored.
    public static let nicknamesPerUserHost = 5
    /// Lines a client may send at once before throttling starts.
    public static let floodBurst = 10
    /// Lines a second a throttled client's lines are processed at.
    public static let floodLinesPerSecond = 2
    /// Lines that may wait for throttling before the client is disconnected.
    public static let floodQueuedLines = 30
    /// Bytes not yet written to a client before it is disconnected.
    public static let sendQueueBytes = 64 * 1024
    /// Time from connecting until registration must be complete.
    public static let registrationTimeout = Duration.seconds(30)
    /// Time without a line from a client before the server sends `PING`.
    public static let idleTimeout = Duration.seconds(120)
    /// Time after that `PING` before the client is disconnected.
    public static let pingTimeout = Duration.seconds(60)
    /// Clients at once, unless `--max-clients` says otherwise.
    public static let defaultMaxClients = 100

    /// `text` cut to at most `limit` UTF-8 bytes, at a character boundary (the whole text when
    /// it fits; empty for a limit of 0 or less).
    public static func truncated(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            if count + size > limit { break }
            result.append(character)
            count += size
        }
        return result
    }
}
