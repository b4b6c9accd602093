//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit

/// The key-value protocol: each message is one JSON value after a 4-byte big-endian length
/// (the length does not count itself). A client sends requests; the server answers each with
/// one response, in order.
enum KeyValueProtocol {
    /// How both sides frame their messages: a length prefix, and at most 64 KiB of JSON.
    static let framer = LengthPrefixedFramer(
        prefix: FramingInteger(width: 4, byteOrder: .big), maximumMessageLength: 64 * 1024)
}

/// What a client asks.
enum KeyValueRequest: Codable, Sendable, Equatable {
    /// Store `value` under `key`, replacing what was there.
    case set(key: String, value: String)
    /// The value stored under `key`.
    case get(key: String)
    /// Forget `key`.
    case remove(key: String)
    /// Every key, sorted.
    case list
}

/// What the server answers, one per request.
enum KeyValueResponse: Codable, Sendable, Equatable {
    /// The value was stored.
    case stored
    /// The value under the key asked for, or `nil` when there is none.
    case value(found: String?)
    /// Whether the key was there to remove.
    case removed(existed: Bool)
    /// The keys, sorted.
    case keys(sorted: [String])
    /// The request could not be served: it did not decode, or it was too large to store.
    case refused(reason: String)
}
