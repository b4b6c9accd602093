//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One IRCv3 message tag: `key` or `key=value`.
///
/// The ``value`` is the unescaped text; escaping (`\:` `\s` `\\` `\r` `\n`) is applied when the
/// tag is serialized and removed when it is parsed.
public struct IRCTag: Sendable, Hashable {
    /// The key, optionally with a `+` (client-only) and a vendor prefix (`example.com/key`).
    public var key: String
    /// The value; `nil` or empty for a tag without one.
    public var value: String?

    /// A tag from its key and value.
    public init(key: String, value: String? = nil) {
        self.key = key
        self.value = value
    }

    /// Whether `key` is a valid tag key: letters, digits, `-`, `.` and `/`, after an optional `+`.
    public static func isValidKey(_ key: String) -> Bool {
        var bytes = Substring(key).utf8[...]
        if bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty
            && bytes.allSatisfy { byte in
                ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "/")
            }
    }

    static func escape(_ value: String) -> String {
        ASCII.escape(value, [";": "\\:", " ": "\\s", "\\": "\\\\", "\r": "\\r", "\n": "\\n"])
    }

    static func unescape(_ value: Substring) -> String {
        var result = ""
        var escaping = false
        for character in value.unicodeScalars {
            if escaping {
                switch character {
                case ":": result += ";"
                case "s": result += " "
                case "r": result += "\r"
                case "n": result += "\n"
                default: result.unicodeScalars.append(character)  // `\\` and unknown escapes
                }
                escaping = false
            } else if character == "\\" {
                escaping = true  // a lone `\` at the end is dropped, as the spec says
            } else {
                result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
