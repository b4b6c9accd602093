//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A service's TXT record: keys with optional values, as RFC 6763 section 6 defines them.
///
/// ```swift
/// var txt: DNSSDTXTRecord = ["path": "/chat", "version": "2"]
/// txt["key"] = .data(Data([0x00, 0xFF]))  // values are bytes; text is UTF-8
/// txt["empty"] = .data(Data())             // "empty=": present, with an empty value
/// txt["secure"] = .keyOnly                 // "secure": a flag, present with no "="
/// txt["path"]?.string                      // "/chat"
/// ```
///
/// Every kind of value survives a round trip through the daemon: binary bytes, an empty value
/// (`key=`) and a key with no `=` at all are three different things. Keys are compared without
/// regard to case, as the RFC says; they keep the spelling they were given. When a record from
/// the network holds a key twice, the first one counts.
public struct DNSSDTXTRecord: Sendable, Hashable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The value of one key.
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral {
        /// The key stands alone, with no `=`: a flag that is present.
        case keyOnly
        /// `key=value`, where the value is any bytes, possibly none.
        case data(Data)

        /// A UTF-8 text value.
        public static func string(_ text: String) -> Value { .data(Data(text.utf8)) }

        /// A UTF-8 text value, written as a string literal.
        public init(stringLiteral text: String) { self = .string(text) }

        /// The value's bytes; `nil` for ``keyOnly``.
        public var data: Data? {
            if case .data(let data) = self { return data }
            return nil
        }

        /// The value as UTF-8 text; `nil` for ``keyOnly`` and for bytes that are not UTF-8.
        public var string: String? { data.flatMap { String(data: $0, encoding: .utf8) } }
    }

    /// The entries in order (the order they were added, or the order on the wire).
    public private(set) var entries: [(key: String, value: Value)] = []

    /// An empty TXT record.
    public init() {}

    /// A record with these keys and values, in this order.
    public init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// A record with these keys and UTF-8 text values (in key order, as a dictionary has none).
    public init(_ dictionary: [String: String]) {
        for key in dictionary.keys.sorted() { self[key] = .string(dictionary[key]!) }
    }

    /// The value for `key` (compared without regard to case); setting `nil` removes the key.
    public subscript(key: String) -> Value? {
        get { index(of: key).map { entries[$0].value } }
        set {
            switch (index(of: key), newValue) {
            case (let i?, let value?): entries[i] = (key, value)
            case (let i?, nil): entries.remove(at: i)
            case (nil, let value?): entries.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { entries.map(\.key) }

    /// Whether the record has no keys.
    public var isEmpty: Bool { entries.isEmpty }

    /// The record as a dictionary. A key with no `=` maps to ``Value/keyOnly``.
    public var dictionary: [String: Value] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private func index(of key: String) -> Int? {
        let wanted = key.lowercased()
        return entries.firstIndex { $0.key.lowercased() == wanted }
    }

    // MARK: Equality

    /// Whether both records have the same keys (ignoring case) with the same values, in any order.
    public static func == (lhs: DNSSDTXTRecord, rhs: DNSSDTXTRecord) -> Bool {
        lhs.normalized == rhs.normalized
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(normalized)
    }

    private var normalized: [String: Value] {
        Dictionary(entries.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    public var description: String {
        let shown = entries.map { entry -> String in
            switch entry.value {
            case .keyOnly: return entry.key
            case .data(let data):
                if let text = String(data: data, encoding: .utf8) { return "\(entry.key)=\(text)" }
                return "\(entry.key)=<\(data.map { String(format: "%02x", $0) }.joined())>"
            }
        }
        return "[" + shown.joined(separator: ", ") + "]"
    }
}

// MARK: Wire format

extension DNSSDTXTRecord {
    /// Reads a TXT record's wire format: length-prefixed strings, each `key`, `key=` or
    /// `key=value`.
    ///
    /// Lenient, as RFC 6763 asks of readers: empty strings and strings that start with `=` are
    /// skipped, a later duplicate of a key is ignored, and a length running past the end ends the
    /// record.
    public init(wireFormat bytes: Data) {
        let bytes = [UInt8](bytes)
        var offset = 0
        // Keys seen so far, folded: one lookup per entry, not a scan (a record may hold
        // thousands of keys, and this runs on the daemon's queue).
        var seen = Set<String>()
        while offset < bytes.count {
            let length = Int(bytes[offset])
            offset += 1
            guard offset + length <= bytes.count else { break }
            let string = bytes[offset..<offset + length]
            offset += length
            guard let first = string.first, first != UInt8(ascii: "=") else { continue }
            let key: String
            let value: Value
            if let equals = string.firstIndex(of: UInt8(ascii: "=")) {
                key = String(decoding: string[string.startIndex..<equals], as: UTF8.self)
                value = .data(Data(string[(equals + 1)...]))
            } else {
                key = String(decoding: string, as: UTF8.self)
                value = .keyOnly
            }
            if seen.insert(key.lowercased()).inserted { entries.append((key, value)) }
        }
    }

    /// The record in wire format, ready for the daemon: one length-prefixed string per entry,
    /// or a single empty string for an empty record (a TXT record is never zero bytes long).
    ///
    /// - Throws: ``DNSSDError/Code/invalidTXTRecord`` for an empty key, a key with `=` or
    ///   characters outside printable ASCII, an entry over 255 bytes, or a record over 65535 bytes.
    public func wireFormat() throws(DNSSDError) -> Data {
        guard !entries.isEmpty else { return Data([0]) }
        var bytes = Data()
        for (key, value) in entries {
            guard !key.isEmpty else {
                throw DNSSDError(.invalidTXTRecord, "a TXT record key must not be empty")
            }
            guard key.utf8.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "=") }) else {
                throw DNSSDError(
                    .invalidTXTRecord,
                    "the TXT record key \"\(key)\" may hold only printable ASCII characters other than \"=\""
                )
            }
            var entry = Data(key.utf8)
            if case .data(let data) = value {
                entry.append(UInt8(ascii: "="))
                entry.append(data)
            }
            guard entry.count <= 255 else {
                throw DNSSDError(
                    .invalidTXTRecord,
                    "the TXT record entry for \"\(key)\" is \(entry.count) bytes; key, \"=\" and value together may be at most 255"
                )
            }
            bytes.append(UInt8(entry.count))
            bytes.append(entry)
        }
        guard bytes.count <= 65535 else {
            throw DNSSDError(.invalidTXTRecord, "the TXT record is \(bytes.count) bytes; at most 65535 fit")
        }
        return bytes
    }
}
