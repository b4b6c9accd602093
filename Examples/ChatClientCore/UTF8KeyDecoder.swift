//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Turns bytes typed at a terminal into characters, one byte at a time, whatever the bytes
/// are: a valid UTF-8 sequence becomes its character once all its bytes are there, and each
/// invalid or cut-off sequence becomes one U+FFFD (the "maximal subpart" rule of Unicode's
/// chapter 3), so a Latin-1 terminal's `é` (`E9`) or a binary paste shows up as `�`.
struct UTF8KeyDecoder: Sendable, Hashable {
    private var pending: [UInt8] = []

    /// Whether bytes of an unfinished sequence are waiting for the rest.
    var hasPending: Bool { !pending.isEmpty }

    /// Feeds one byte; returns the characters it completed (none, one, or two when it ended
    /// an invalid sequence and was itself a whole character).
    mutating func feed(_ byte: UInt8) -> [Character] {
        pending.append(byte)
        var characters: [Character] = []
        while let first = pending.first {
            guard let length = Self.sequenceLength(first) else {
                characters.append("\u{FFFD}")
                pending.removeFirst()
                continue
            }
            // The bytes after the first that are there so far, each checked against the
            // range its position allows.
            if let bad = pending.indices.dropFirst().first(where: {
                !Self.continuationRange(first: first, position: $0).contains(pending[$0])
            }) {
                characters.append("\u{FFFD}")
                pending.removeFirst(bad)
                continue
            }
            guard pending.count >= length else { break }
            characters.append(Character(Self.scalar(of: pending)))
            pending.removeAll()
        }
        return characters
    }

    /// Ends an unfinished sequence (another key came first): `nil`, or U+FFFD for it.
    mutating func flush() -> Character? {
        guard hasPending else { return nil }
        pending.removeAll()
        return "\u{FFFD}"
    }

    /// How many bytes a sequence starting with `first` has; `nil` when `first` starts none.
    private static func sequenceLength(_ first: UInt8) -> Int? {
        switch first {
        case 0x00...0x7F: 1
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: nil
        }
    }

    /// The values allowed at `position` (1 to 3) of a sequence starting with `first`: the
    /// second byte is narrower after E0, ED, F0 and F4 (no overlong forms, no surrogates,
    /// nothing past U+10FFFF).
    private static func continuationRange(first: UInt8, position: Int) -> ClosedRange<UInt8> {
        guard position == 1 else { return 0x80...0xBF }
        switch first {
        case 0xE0: return 0xA0...0xBF
        case 0xED: return 0x80...0x9F
        case 0xF0: return 0x90...0xBF
        case 0xF4: return 0x80...0x8F
        default: return 0x80...0xBF
        }
    }

    /// The scalar of a whole, valid sequence.
    private static func scalar(of bytes: [UInt8]) -> Unicode.Scalar {
        var value: UInt32
        switch bytes.count {
        case 1: value = UInt32(bytes[0])
        case 2: value = UInt32(bytes[0] & 0x1F)
        case 3: value = UInt32(bytes[0] & 0x0F)
        default: value = UInt32(bytes[0] & 0x07)
        }
        for byte in bytes.dropFirst() { value = value << 6 | UInt32(byte & 0x3F) }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
