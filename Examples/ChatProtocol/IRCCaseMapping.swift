//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How nicknames and channel names compare: the `CASEMAPPING` ISUPPORT token.
///
/// The chat server uses ``ascii``; ``rfc1459`` is here for clients of servers that announce it.
/// Only ASCII bytes change, so folding never breaks UTF-8.
public enum IRCCaseMapping: String, Sendable, Hashable, CaseIterable {
    /// `A`–`Z` fold to `a`–`z`, nothing else.
    case ascii
    /// As ``ascii``, and `[`, `]`, `\`, `^` fold to `{`, `}`, `|`, `~` (as ircd's tables do).
    case rfc1459

    /// The mapping a server announces in `005` (`CASEMAPPING=<value>`); ``ascii`` for a value
    /// not known here, and ``rfc1459`` when there is none, as RFC 1459 servers imply.
    public init(isupportValue: String?) {
        guard let isupportValue else {
            self = .rfc1459
            return
        }
        self = IRCCaseMapping(rawValue: isupportValue.lowercased()) ?? .ascii
    }

    /// `name` folded to lower case under this mapping: the key to compare and look names up by.
    public func folded(_ name: String) -> String {
        String(decoding: name.utf8.map(fold), as: UTF8.self)
    }

    /// Whether two names are the same under this mapping.
    public func equals(_ first: String, _ second: String) -> Bool {
        first.utf8.count == second.utf8.count && first.utf8.elementsEqual(second.utf8) { fold($0) == fold($1) }
    }

    func fold(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 0x20
        case UInt8(ascii: "[")...UInt8(ascii: "^"):
            self == .rfc1459 ? byte + 0x20 : byte
        default: byte
        }
    }
}
