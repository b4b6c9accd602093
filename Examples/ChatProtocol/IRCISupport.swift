//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `005` (ISUPPORT) tokens the chat server sends, in the order of Protocol.md.
public enum IRCISupport {
    /// The tokens, with `network` (the server's `--name`) as `NETWORK`, its spaces and
    /// backslashes escaped as ISUPPORT requires, and the server's flood limits as `FLOOD`
    /// (none when flood control is off).
    public static func tokens(network: String, flood: IRCFloodLimits? = .protocolDefaults) -> [String] {
        [
            "AWAYLEN=\(IRCLimits.awayLength)",
            "CASEMAPPING=\(IRCCaseMapping.ascii.rawValue)",
            "CHANLIMIT=#:\(IRCLimits.channelsPerClient)",
            "CHANMODES=,,,n",
            "CHANNELLEN=\(IRCLimits.channelNameLength)",
            "CHANTYPES=#",
        ] + (flood.map { ["FLOOD=\($0.isupportValue)"] } ?? []) + [
            "NETWORK=\(escape(network))",
            "NICKLEN=\(IRCLimits.nicknameLength)",
            "PREFIX=",
            "TARGMAX=PRIVMSG:\(IRCLimits.targetsPerMessage),NOTICE:\(IRCLimits.targetsPerMessage),WHOIS:\(IRCLimits.nicknamesPerWhois)",
            "TOPICLEN=\(IRCLimits.topicLength)",
            "USERLEN=\(IRCLimits.userNameLength)",
        ]
    }

    /// `value` with `\`, space and `=` written `\x5C`, `\x20` and `\x3D`, and the bytes a
    /// parameter cannot hold (NUL, CR, LF) dropped.
    public static func escape(_ value: String) -> String {
        ASCII.escape(value, ["\\": "\\x5C", " ": "\\x20", "=": "\\x3D", "\0": "", "\r": "", "\n": ""])
    }
}
