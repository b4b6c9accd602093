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

/// The peer a connection comes from, as per-address limits count it: an IPv4 address, or the
/// /64 network of an IPv6 address (one host or one customer usually gets a whole /64, so
/// counting single IPv6 addresses would count nothing). An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`) is its IPv4 address.
///
/// ```swift
/// PeerAddressGroup(ipAddress: "2001:db8:1:2::5") == PeerAddressGroup(ipAddress: "2001:db8:1:2:ffff::1")  // true
/// ```
public struct PeerAddressGroup: Hashable, Sendable, CustomStringConvertible {
    /// Four bytes for IPv4, the eight of the /64 prefix for IPv6.
    private let bytes: [UInt8]

    /// The group of a textual IP address (`"127.0.0.1"`, `"::1"`, `"0::1"`); `nil` when the
    /// text is not an IP address.
    public init?(ipAddress: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, ipAddress, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, ipAddress, &v6) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// From 4 or 16 address bytes in network order.
    private init(bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        if bytes.count == 16, Array(bytes.prefix(12)) == mappedPrefix {
            self.bytes = Array(bytes.suffix(4))
        } else if bytes.count == 16 {
            self.bytes = Array(bytes.prefix(8))
        } else {
            self.bytes = bytes
        }
    }

    /// `192.0.2.1`, or `2001:db8:1:2::/64`.
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for index in stride(from: 0, to: 8, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
