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
#endif

/// This process's TCP sockets, found by asking each of its file descriptors for its addresses:
/// precise even while other tests open and close sockets of their own.
enum OpenSockets {
    /// How many of this process's file descriptors are sockets with `port` at either end.
    static func count(port: Int) -> Int {
        descriptors(port: port).count
    }

    /// This process's file descriptors that are IP sockets with `port` at either end (with
    /// `localOnly`, only those whose own port is `port`: a listener's and its accepted ones).
    static func descriptors(port: Int, localOnly: Bool = false) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return entries.compactMap(Int32.init).filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                target.hasPrefix("socket:[")
            else { return false }
            if Self.port(of: fd, local: true) == port { return true }
            return !localOnly && Self.port(of: fd, local: false) == port
        }
    }

    /// The local (or peer) port of socket `fd`, if it is an IPv4 or IPv6 socket.
    private static func port(of fd: Int32, local: Bool) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                local ? getsockname(fd, $0, &length) : getpeername(fd, $0, &length)
            }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
