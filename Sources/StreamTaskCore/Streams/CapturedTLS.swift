//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// TLS on a captured connection, as Darwin's socket streams take it: through the
/// `socketSecurityLevelKey` property, before the streams open (TLS from the first byte) or
/// after (an upgrade, as STARTTLS protocols do it). Each case holds the level asked for, as
/// its raw value (the value the property reads back).
enum CapturedTLS: Sendable {
    /// Not asked for: the connection is plaintext, unless the task started TLS before the
    /// capture.
    case plain
    /// Asked for: the handshake waits for the connection and for the operations before it, or
    /// is under way. Reads from the connection wait; writes queue behind it.
    case starting(level: String)
    /// The handshake completed (or the task had started TLS before the capture).
    case on(level: String)
    /// The handshake failed: the streams fail with the error.
    case failed(level: String, StreamTaskError)

    /// The level asked for; `nil` while plain.
    var level: String? {
        switch self {
        case .plain: return nil
        case .starting(let level), .on(let level), .failed(let level, _): return level
        }
    }

    /// Whether the handshake has yet to complete.
    var isStarting: Bool {
        if case .starting = self { return true }
        return false
    }

    /// The handshake's failure, if it failed.
    var failure: StreamTaskError? {
        if case .failed(_, let error) = self { return error }
        return nil
    }

    /// The levels Darwin's socket streams take, by raw value. Every level but `.none` asks for
    /// TLS, negotiated within the session's TLS versions: SSLv2 and SSLv3 are not offered
    /// (no current peer accepts them), and `.tlSv1` is not held to TLS 1.0.
    static let levels: Set<String> = Set(
        [
            StreamSocketSecurityLevel.none, .ssLv2, .ssLv3, .tlSv1, .negotiatedSSL,
        ].map(\.rawValue))

    /// The level `property` names (a `StreamSocketSecurityLevel`, or its raw value as a
    /// string), or `nil` if it names none: such a value is not taken.
    static func level(of property: AnyObject?) -> String? {
        let raw: String?
        if let level = property as? StreamSocketSecurityLevel {
            raw = level.rawValue
        } else {
            raw = property as? String
        }
        guard let raw, levels.contains(raw) else { return nil }
        return raw
    }
}
