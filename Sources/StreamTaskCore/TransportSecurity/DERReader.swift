//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Just enough DER to read a certificate's algorithms and key size: tag, length, contents.
///
/// swift-certificates refuses to parse a certificate with an RSA key under 2048 bits at all, so
/// the transport-security checks, which must name such a key, read the few fields they need
/// themselves. Every read is bounds-checked; malformed input gives `nil`, never a trap.
struct DERReader {
    /// One element: its tag byte and its contents.
    struct Element {
        let tag: UInt8
        let contents: ArraySlice<UInt8>

        /// The elements inside a constructed element (a SEQUENCE, a context tag…).
        var children: [Element]? { DERReader(contents).all() }
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// Every element in order, or `nil` if any is malformed.
    func all() -> [Element]? {
        var reader = self
        var elements: [Element] = []
        while !reader.bytes.isEmpty {
            guard let element = reader.next() else { return nil }
            elements.append(element)
        }
        return elements
    }

    /// The next element; `nil` at the end or on malformed input.
    mutating func next() -> Element? {
        guard let tag = bytes.first else { return nil }
        var index = bytes.index(after: bytes.startIndex)
        guard index < bytes.endIndex else { return nil }
        let first = bytes[index]
        index += 1
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7f)
            guard count > 0, count <= 4, bytes.endIndex - index >= count else { return nil }
            length = 0
            for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
            index += count
        }
        guard length >= 0, bytes.endIndex - index >= length else { return nil }
        let contents = bytes[index..<index + length]
        bytes = bytes[(index + length)...]
        return Element(tag: tag, contents: contents)
    }

    static let sequence: UInt8 = 0x30
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let objectIdentifier: UInt8 = 0x06

    /// An object identifier's contents in dotted form (`1.2.840.113549.1.1.5`).
    static func dotted(_ oid: ArraySlice<UInt8>) -> String {
        var parts: [String] = []
        var value = 0
        for byte in oid {
            value = value << 7 | Int(byte & 0x7f)
            if byte & 0x80 == 0 {
                if parts.isEmpty {
                    parts.append(String(min(value / 40, 2)))
                    parts.append(String(value - min(value / 40, 2) * 40))
                } else {
                    parts.append(String(value))
                }
                value = 0
            }
            if value > Int.max >> 8 { break }
        }
        return parts.joined(separator: ".")
    }
}
