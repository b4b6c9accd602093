//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The rules for nicknames, channel names and user names (Protocol.md, "Names and case mapping").
public enum IRCName {
    /// Whether `nickname` is valid: 1 to `maxLength` bytes of ASCII, starting with a letter or
    /// one of `` [ ] \ ` _ ^ { | } ``, then also digits and `-`.
    public static func isValidNickname(_ nickname: String, maxLength: Int = IRCLimits.nicknameLength) -> Bool {
        let bytes = nickname.utf8
        guard let first = bytes.first, bytes.count <= maxLength, isLetterOrSpecial(first) else { return false }
        return bytes.dropFirst().allSatisfy { isLetterOrSpecial($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") }
    }

    /// Whether another server's nickname can be taken as it is: 1 to `maxLength` bytes of
    /// printable ASCII that cannot be read as a channel, a mask, a prefix or a list. Servers
    /// differ in length and first characters (ngIRCd passes on `9lives`), so a link is not held
    /// to this server's own rule.
    public static func isAcceptableRemoteNickname(_ nickname: String, maxLength: Int = 64) -> Bool {
        let bytes = nickname.utf8
        guard let first = bytes.first, bytes.count <= maxLength, first != UInt8(ascii: "#"),
            first != UInt8(ascii: ":"), first != UInt8(ascii: "&")
        else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"!@*?,".utf8.contains($0) }
    }

    /// Whether `channel` is a valid channel name: `#` and at least one more byte, at most
    /// `maxLength` bytes, without NUL, BEL, CR, LF, space, comma or `:`.
    public static func isValidChannelName(_ channel: String, maxLength: Int = IRCLimits.channelNameLength) -> Bool {
        let bytes = channel.utf8
        guard bytes.first == UInt8(ascii: "#"), bytes.count >= 2, bytes.count <= maxLength else { return false }
        return !bytes.contains { [0x00, 0x07, 0x0D, 0x0A, 0x20, 0x2C, 0x3A].contains($0) }
    }

    /// Whether `target` names a channel rather than a nickname: it starts with one of
    /// `types`, the server's `CHANTYPES` (this protocol's only type is `#`).
    public static func isChannel(_ target: String, types: String = "#") -> Bool {
        guard let first = target.unicodeScalars.first else { return false }
        return types.unicodeScalars.contains(first)
    }

    /// The channel types a client assumes until the server's `005` names its own: `#` and `&`,
    /// as the modern IRC client protocol advises for a server that does not advertise
    /// `CHANTYPES`.
    public static let defaultChannelTypes = "#&"

    /// `name` as a channel name: unchanged when it starts with one of `types`, else with `#`
    /// in front (`chat` becomes `#chat`).
    public static func channelName(_ name: String, types: String = defaultChannelTypes) -> String {
        isChannel(name, types: types) ? name : "#" + name
    }

    /// The user name the server uses for `USER <user> …`: ASCII letters, digits, `-`, `_` and
    /// `.` only, at most `maxLength` bytes; `fallback` (the nickname) when nothing is left.
    public static func sanitizedUserName(
        _ user: String, fallback: String, maxLength: Int = IRCLimits.userNameLength
    ) -> String {
        let kept = user.utf8.filter {
            ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                || $0 == UInt8(ascii: ".")
        }
        let name = String(decoding: kept.prefix(maxLength), as: UTF8.self)
        return name.isEmpty ? String(fallback.prefix(maxLength)) : name
    }

    /// `host` as it may appear in a prefix or parameter: an IPv6 address starting with `:`
    /// gets a `0` in front (`::1` becomes `0::1`).
    public static func displayHost(_ host: String) -> String {
        host.hasPrefix(":") ? "0" + host : host
    }

    static func isLetterOrSpecial(_ byte: UInt8) -> Bool {
        // Letters, and the specials `[ \ ] ^ _ \`` (0x5B-0x60) and `{ | }` (0x7B-0x7D).
        ASCII.isLetter(byte) || (0x5B...0x60).contains(byte) || (0x7B...0x7D).contains(byte)
    }
}

extension IRCName {
    /// The items of a list separated by `separator` (`#a,#b`; `tls sasl`), split at that byte:
    /// not at Swift `Character`s, where a separator followed by a combining mark would form
    /// one character with it and not split at all. Empty items are dropped.
    public static func items(of list: String, separatedBy separator: Unicode.Scalar = ",") -> [String] {
        list.unicodeScalars.split(separator: separator).map { String(String.UnicodeScalarView($0)) }
    }
}
