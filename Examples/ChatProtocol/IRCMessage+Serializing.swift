//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension IRCMessage {
    /// The line for this message, without CR LF.
    ///
    /// The last parameter gets a leading `:` only when it needs one: when it is empty, holds a
    /// space or starts with `:`. Throws an ``IRCMessageError`` rather than write a line that a
    /// receiver would split or misread: a CR, LF or NUL anywhere, a parameter other than the
    /// last that is empty, holds a space or starts with `:`, more than 15 parameters, an
    /// invalid command, source or tag key, or a message over 510 bytes (use ``fitted(maxLength:)``
    /// to shorten the last parameter instead).
    public func serialized(maxLength: Int = IRCLimits.messageLength) throws -> String {
        var line = ""
        if !tags.isEmpty {
            line = "@" + (try tags.map(Self.serialize).joined(separator: ";")) + " "
            if line.utf8.count > IRCLimits.tagSectionLength {
                throw IRCMessageError(
                    .tagsTooLong,
                    "the tag section would have \(line.utf8.count) bytes; at most \(IRCLimits.tagSectionLength) are allowed"
                )
            }
        }
        let tagBytes = line.utf8.count
        if let source {
            try Self.checkNoLineBreakOrNUL(source, what: "the source")
            if source.isEmpty || source.utf8.contains(Self.space) {
                throw IRCMessageError(.invalidSource, "the source `\(source.prefix(32))` is empty or holds a space")
            }
            line += ":" + source + " "
        }
        guard Self.isValidCommand(command.utf8) else {
            throw IRCMessageError(
                .invalidCommand, "the command `\(command.prefix(32))` is neither letters nor three digits")
        }
        line += command
        if parameters.count > IRCLimits.parameterCount {
            throw IRCMessageError(
                .tooManyParameters,
                "the message has \(parameters.count) parameters; at most \(IRCLimits.parameterCount) are allowed")
        }
        for (index, parameter) in parameters.enumerated() {
            try Self.checkNoLineBreakOrNUL(parameter, what: "parameter \(index + 1)")
            let needsColon =
                parameter.isEmpty || parameter.utf8.contains(Self.space) || parameter.utf8.first == UInt8(ascii: ":")
            if needsColon && index != parameters.count - 1 {
                throw IRCMessageError(
                    .invalidParameter,
                    "parameter \(index + 1) of \(parameters.count), `\(parameter.prefix(32))`, is empty, holds a space or starts with `:`; only the last parameter may"
                )
            }
            line += needsColon ? " :" + parameter : " " + parameter
        }
        let messageBytes = line.utf8.count - tagBytes
        if messageBytes > maxLength {
            throw IRCMessageError(
                .lineTooLong,
                "the \(command) message would have \(messageBytes) bytes; at most \(maxLength) are allowed (\(maxLength + 2) with CR LF)"
            )
        }
        return line
    }

    /// The bytes to write: the serialized line and CR LF.
    public func wireBytes(maxLength: Int = IRCLimits.messageLength) throws -> [UInt8] {
        Array(try serialized(maxLength: maxLength).utf8) + [Self.cr, Self.lf]
    }

    /// This message with its last parameter cut, at a character boundary, so that the line
    /// fits in `maxLength` bytes; unchanged when it fits already or has no parameters.
    ///
    /// The server relays `PRIVMSG`, `NOTICE`, `TOPIC` and quit reasons through this: the
    /// source it adds, or U+FFFD in place of invalid UTF-8, can make a line longer than the
    /// client's was.
    public func fitted(maxLength: Int = IRCLimits.messageLength) -> IRCMessage {
        guard var last = parameters.last else { return self }
        var message = self
        var excess = message.messageLength - maxLength
        while excess > 0 && !last.isEmpty {
            // Cut whole characters until the excess bytes are gone; a cut may also drop the `:`,
            // so look again.
            last = IRCLimits.truncated(last, toBytes: last.utf8.count - excess)
            message.parameters[message.parameters.count - 1] = last
            excess = message.messageLength - maxLength
        }
        return message
    }

    /// Bytes of the serialized message, tags not counted, computed without validating it.
    var messageLength: Int {
        var count = (source.map { $0.utf8.count + 2 } ?? 0) + command.utf8.count
        for (index, parameter) in parameters.enumerated() {
            let needsColon =
                parameter.isEmpty || parameter.utf8.contains(Self.space) || parameter.utf8.first == UInt8(ascii: ":")
            count += 1 + parameter.utf8.count + (needsColon && index == parameters.count - 1 ? 1 : 0)
        }
        return count
    }

    static func checkNoLineBreakOrNUL(_ text: String, what: String) throws {
        if text.utf8.contains(0) {
            throw IRCMessageError(.containsNUL, "\(what) holds a NUL byte")
        }
        if text.utf8.contains(where: { $0 == cr || $0 == lf }) {
            throw IRCMessageError(.containsLineBreak, "\(what) holds a CR or LF")
        }
    }

    static func serialize(_ tag: IRCTag) throws -> String {
        guard IRCTag.isValidKey(tag.key) else {
            throw IRCMessageError(.invalidTags, "the tag key `\(tag.key.prefix(32))` is not valid")
        }
        guard let value = tag.value, !value.isEmpty else { return tag.key }
        if value.utf8.contains(0) {  // CR and LF are escaped; NUL cannot be
            throw IRCMessageError(.containsNUL, "the value of tag \(tag.key) holds a NUL byte")
        }
        return tag.key + "=" + IRCTag.escape(value)
    }
}
