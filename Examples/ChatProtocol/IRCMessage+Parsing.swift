//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension IRCMessage {
    /// Parses one line, given without its CR LF.
    ///
    /// Never traps, whatever the bytes: invalid UTF-8 is decoded with U+FFFD in place of each
    /// invalid sequence; NUL, CR and LF, an over-long message and a missing or malformed
    /// command are reported as ``IRCMessageError``s. Several spaces between parts count as
    /// one; the command is upper-cased. After fourteen parameters the rest of the line is the
    /// fifteenth, as RFC 2812's grammar has it, so there are never more than 15.
    ///
    /// - Parameter line: the bytes of the line, without CR LF.
    /// - Parameter maxLength: the most bytes the message may have, tags not counted
    ///   (``IRCLimits/messageLength`` unless a client wants to be lenient with a server).
    public init(parsing line: some Collection<UInt8>, maxLength: Int = IRCLimits.messageLength) throws {
        let bytes = Array(line)
        if let index = bytes.firstIndex(of: 0) {
            throw IRCMessageError(.containsNUL, "the line holds a NUL byte at offset \(index)")
        }
        if let index = bytes.firstIndex(where: { $0 == Self.cr || $0 == Self.lf }) {
            throw IRCMessageError(
                .containsLineBreak, "the line holds a CR or LF at offset \(index); give one line without its CR LF")
        }
        var position = 0
        var tags: [IRCTag] = []
        if bytes.first == UInt8(ascii: "@") {
            let end = bytes.firstIndex(of: Self.space) ?? bytes.endIndex
            if end + 1 > IRCLimits.tagSectionLength {
                throw IRCMessageError(
                    .tagsTooLong,
                    "the tag section has \(end + 1) bytes; at most \(IRCLimits.tagSectionLength) are allowed")
            }
            tags = try Self.parseTags(bytes[1..<end])
            position = end
        }
        position = Self.skipSpaces(bytes, from: position)
        let messageLength = bytes.count - position
        if messageLength > maxLength {
            throw IRCMessageError(
                .lineTooLong,
                "the message has \(messageLength) bytes; at most \(maxLength) are allowed (\(maxLength + 2) with CR LF)"
            )
        }
        if position == bytes.count {
            throw IRCMessageError(
                tags.isEmpty ? .empty : .missingCommand,
                tags.isEmpty ? "the line is empty" : "the line has tags but no command")
        }

        var source: String?
        if bytes[position] == UInt8(ascii: ":") {
            let end = bytes[position...].firstIndex(of: Self.space) ?? bytes.endIndex
            if end == position + 1 {
                throw IRCMessageError(.invalidSource, "the source after `:` is empty")
            }
            source = Self.decode(bytes[(position + 1)..<end])
            position = Self.skipSpaces(bytes, from: end)
            if position == bytes.count {
                throw IRCMessageError(.missingCommand, "the line has a source but no command")
            }
        }

        let commandEnd = bytes[position...].firstIndex(of: Self.space) ?? bytes.endIndex
        let command = bytes[position..<commandEnd]
        guard Self.isValidCommand(command) else {
            throw IRCMessageError(
                .invalidCommand, "the command `\(Self.decode(command.prefix(32)))` is neither letters nor three digits")
        }
        position = commandEnd

        var parameters: [String] = []
        while true {
            position = Self.skipSpaces(bytes, from: position)
            if position == bytes.count { break }
            if bytes[position] == UInt8(ascii: ":") {
                parameters.append(Self.decode(bytes[(position + 1)...]))
                break
            }
            if parameters.count == IRCLimits.parameterCount - 1 {
                // RFC 2812: after fourteen, the rest of the line is the last parameter, its `:`
                // optional (ircII sends `ISON` with a long list of nicks this way).
                parameters.append(Self.decode(bytes[position...]))
                break
            }
            let end = bytes[position...].firstIndex(of: Self.space) ?? bytes.endIndex
            parameters.append(Self.decode(bytes[position..<end]))
            position = end
        }
        self.init(
            tags: tags, source: source,
            command: String(decoding: command.map(Self.uppercased), as: UTF8.self),
            parameters: parameters)
    }

    /// Parses one line given as text, without its CR LF.
    public init(parsing line: String, maxLength: Int = IRCLimits.messageLength) throws {
        try self.init(parsing: Array(line.utf8), maxLength: maxLength)
    }

    static let space = UInt8(ascii: " ")
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    static func skipSpaces(_ bytes: [UInt8], from position: Int) -> Int {
        bytes[position...].firstIndex { $0 != space } ?? bytes.endIndex
    }

    static func decode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
    }

    static func isValidCommand(_ command: some Collection<UInt8>) -> Bool {
        (!command.isEmpty && command.allSatisfy(ASCII.isLetter))
            || (command.count == 3 && command.allSatisfy(ASCII.isDigit))
    }

    static func parseTags(_ section: ArraySlice<UInt8>) throws -> [IRCTag] {
        guard !section.isEmpty else {
            throw IRCMessageError(.invalidTags, "the tag section after `@` is empty")
        }
        return try section.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true).map { item in
            // Split at the `=` byte, not at a Character: a value starting with a combining mark
            // would fuse with the `=` into one Character and hide it.
            let equals = item.firstIndex(of: UInt8(ascii: "="))
            let key = decode(item[..<(equals ?? item.endIndex)])
            guard IRCTag.isValidKey(key) else {
                throw IRCMessageError(.invalidTags, "the tag key `\(key.prefix(32))` is not valid")
            }
            let value = equals.map { IRCTag.unescape(Substring(decode(item[($0 + 1)...]))) }
            return IRCTag(key: key, value: value)
        }
    }
}
