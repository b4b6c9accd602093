//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Byte classes and escaping shared by the parser, the serializer and the name rules.
enum ASCII {
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }

    /// `text` with each scalar in `replacements` replaced by its value (an empty value drops it).
    static func escape(_ text: String, _ replacements: [Unicode.Scalar: String]) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] {
                escaped += replacement
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
