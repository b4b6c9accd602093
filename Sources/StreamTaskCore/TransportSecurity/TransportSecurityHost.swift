//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A host as App Transport Security sees it: a lowercase name, or an IP address.
struct TransportSecurityHost {
    /// The host in lowercase, without the brackets of an IPv6 literal.
    let text: String
    /// The address bytes (4 or 16), when the host is an IP address.
    let address: [UInt8]?

    init(_ host: String) {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") {
            text = String(text.dropFirst().dropLast())
        }
        self.text = text
        self.address = Self.addressBytes(text)
    }

    /// A name ATS never applies to: one without a dot (`printer`, `localhost`), or a `.local`
    /// name (multicast DNS).
    ///
    /// The dots are bytes: as a `Character`, a dot followed by a combining mark is another
    /// character, and the name would seem to have none.
    var isUnqualifiedOrLocalName: Bool {
        guard address == nil else { return false }
        var name = text.utf8[...]
        if name.last == UInt8(ascii: ".") { name = name.dropLast() }
        return !name.contains(UInt8(ascii: ".")) || name.reversed().starts(with: ".local".utf8.reversed())
    }

    /// The bytes of a textual IPv4 or IPv6 address (an IPv6 zone, `%eth0`, is left out).
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        // The zone starts at the byte "%" (a `Character` fuses it with a combining mark), and
        // the address is what comes before it, even if nothing does.
        let unzoned =
            text.utf8.firstIndex(of: UInt8(ascii: "%")).map { String(decoding: text.utf8[..<$0], as: UTF8.self) }
            ?? text
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, unzoned, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { Array($0) }
    }
}

/// An IP address or CIDR range, as an `NSExceptionDomains` key may name one.
struct AddressRange {
    let network: [UInt8]
    let prefixLength: Int

    /// `nil` when `key` is a domain name, or not a valid address or range.
    init?(_ key: String) {
        let parts = key.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = TransportSecurityHost.addressBytes(String(parts[0])) else { return nil }
        let bits = network.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bits).contains(given) else { return nil }
            length = given
        }
        self.network = network
        self.prefixLength = length
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network, address) where remaining > 0 {
            let bits = min(remaining, 8)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
