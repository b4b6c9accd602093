//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts that skip the proxy, from `no_proxy`, matched as curl matches them.
///
/// - A value of just `*` matches every host.
/// - Entries are separated by commas (and may be surrounded by spaces); empty ones are ignored.
/// - A name matches itself and every name below it, case-insensitively: `example.com` and
///   `.example.com` both match `example.com` and `www.example.com`, never `nonexample.com`.
///   A trailing dot on either side is ignored.
/// - An IPv4 or IPv6 address (IPv6 without brackets) matches that address; with `/bits`
///   (CIDR) it matches every address in that range. Addresses match only hosts given as
///   addresses: the target's name is not resolved to check the list.
/// - An entry may end in `:port` (`[addr]:port` for IPv6); it then matches that port only.
///   curl ignores such entries (they never match); this is the one extension.
struct NoProxyList: Equatable {
    enum Pattern: Equatable {
        case name(String)
        case network(bytes: [UInt8], prefixLength: Int)
    }

    struct Entry: Equatable {
        var pattern: Pattern
        var port: Int?
    }

    var matchesEverything = false
    var entries: [Entry] = []

    init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" {
            matchesEverything = true
            return
        }
        for token in trimmed.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            if let entry = Self.entry(String(token)) { entries.append(entry) }
        }
    }

    /// Whether a task to `host` on `port` connects directly.
    func matches(host: String, port: Int) -> Bool {
        if matchesEverything { return true }
        var target = host
        if let inner = target.insideBrackets { target = String(inner) }
        let address = IPAddressBytes.parse(target)
        if address == nil {
            target = target.lowercased()
            if target.hasSuffix(".") { target.removeLast() }
        }
        return entries.contains { entry in
            if let wanted = entry.port, wanted != port { return false }
            switch (entry.pattern, address) {
            case (.name(let name), nil):
                return target == name || target.hasSuffix("." + name)
            case (.network(let network, let bits), let bytes?):
                return IPAddressBytes.prefix(of: bytes, equals: network, bits: bits)
            default:
                return false
            }
        }
    }

    private static func entry(_ token: String) -> Entry? {
        var text = Substring(token)
        var port: Int?
        if text.hasPrefix("[") {
            // [IPv6] or [IPv6]:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":"), let number = Int(after.dropFirst()) {
                port = number
            } else if !after.isEmpty {
                return nil
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // name:port or IPv4:port (a bare IPv6 address has several colons)
            guard let number = Int(text[text.index(after: colon)...]) else { return nil }
            port = number
            text = text[..<colon]
        }
        if let pattern = network(text) {
            return Entry(pattern: pattern, port: port)
        }
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix(".") { name.removeFirst() }
        guard !name.isEmpty else { return nil }
        return Entry(pattern: .name(name), port: port)
    }

    /// An address, or an address range in CIDR notation.
    private static func network(_ text: Substring) -> Pattern? {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = IPAddressBytes.parse(String(parts[0])) else { return nil }
        var bits = bytes.count * 8
        if parts.count == 2 {
            guard let number = Int(parts[1]), (0...bits).contains(number) else { return nil }
            bits = number
        }
        return .network(bytes: bytes, prefixLength: bits)
    }
}

/// IPv4 and IPv6 addresses as bytes in network order, parsed with `inet_pton`.
enum IPAddressBytes {
    /// 4 bytes for an IPv4 address, 16 for IPv6, `nil` for anything else (such as a name).
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// Whether the first `bits` bits of two addresses of the same family agree.
    static func prefix(of address: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        guard address.count == network.count else { return false }
        let whole = bits / 8
        if address[..<whole] != network[..<whole] { return false }
        let rest = bits % 8
        if rest == 0 { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return address[whole] & mask == network[whole] & mask
    }
}
