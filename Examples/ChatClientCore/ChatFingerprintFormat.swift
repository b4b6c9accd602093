//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Certificate fingerprints in the one form the chat shows and takes everywhere: `sha256:` and
/// 64 lower-case hex digits, as chat-server prints it and advertises it in its TXT record. The
/// library's messages write them as `SHA-256 AB:CD:…`; the client rewrites those.
enum ChatFingerprintFormat {
    /// `text` with every `SHA-256 ` fingerprint of 32 colon-separated hex bytes in the chat's
    /// form; the rest unchanged.
    static func unified(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let marker = rest.range(of: "SHA-256 ") {
            result += rest[..<marker.lowerBound]
            let candidate = rest[marker.upperBound...].prefix(32 * 3 - 1)
            let bytes = candidate.split(separator: ":", omittingEmptySubsequences: false).compactMap { part in
                part.count == 2 ? UInt8(part, radix: 16) : nil
            }
            if candidate.count == 32 * 3 - 1, bytes.count == 32 {
                result += ChatServiceRecord.fingerprint(bytes)
                rest = rest[candidate.endIndex...]
            } else {
                result += rest[marker]
                rest = rest[marker.upperBound...]
            }
        }
        return result + rest
    }
}
