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

/// An IPv4 or IPv6 address as the kernel writes it: 4 or 16 bytes in network order.
package struct RouteAddress: Hashable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    /// Nil unless `bytes` is 4 or 16 bytes long. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
    /// what a dual-stack listener reports for IPv4 peers) becomes the IPv4 address.
    init?(bytes: [UInt8]) {
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            self.bytes = Array(bytes[12...])
        } else if bytes.count == 4 || bytes.count == 16 {
            self.bytes = bytes
        } else {
            return nil
        }
    }

    /// Parses a numeric address such as `SocketAddress.ipAddress` gives; an IPv6 zone
    /// (`%eth0`) is ignored.
    package init?(_ text: String) {
        let plain = String(text.prefix { $0 != "%" })
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
        } else if inet_pton(AF_INET6, plain, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    var isIPv4: Bool { bytes.count == 4 }

    /// 127.0.0.0/8 or ::1: such a connection never changes route.
    package var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    package var description: String {
        if isIPv4 { return bytes.map { String($0) }.joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2)
            .map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
