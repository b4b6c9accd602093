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

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: a socket
/// bound to it that does not listen. Unlike a port whose listener closed, no other test's
/// listener can take it meanwhile.
public final class ClosedPort: @unchecked Sendable {
    // @unchecked Sendable: `fd` is only closed, once.
    public let port: Int
    private var fd: Int32

    /// A closed port outside the ephemeral range (see ``TestPortRange``).
    public convenience init() throws {
        var lastError: (any Error)?
        for _ in 0..<100 {
            do {
                try self.init(port: TestPortRange.random())
                return
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }

    /// That port, closed.
    public init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw ClosedPortError(port: port)
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Frees the port.
    public func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}

public struct ClosedPortError: Error, CustomStringConvertible {
    public let port: Int
    public var description: String { "could not bind 127.0.0.1:\(port)" }
}

/// Ports for sockets that must not collide with other tests' listeners.
///
/// They come from below the ephemeral range (32768 and up on Linux), where `bind` to port 0
/// finds the ports of every other test: the loopback system hands a freed port out again at
/// once, so a port that a test closed to get "connection refused" could otherwise be listened
/// on by the next test before it is used. Keeping to separate ranges keeps tests out of each
/// other's way.
public enum TestPortRange {
    /// A port from the range.
    public static func random() -> Int { Int.random(in: 20_000..<32_000) }
}
