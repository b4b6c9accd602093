//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a host name to its IPv4 and IPv6 addresses with `getaddrinfo`, off the event loop.
///
/// The task resolves before it connects so that it can time the lookup for its metrics and
/// report "no such host" by itself; ``ResolvedAddresses`` then hands the result to SwiftNIO's
/// bootstrap, which races the addresses (Happy Eyeballs).
enum NameResolver {
    static func resolve(host: String, port: Int, on eventLoop: any EventLoop) -> EventLoopFuture<[SocketAddress]> {
        NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
            try addresses(host: host, port: port)
        }
    }

    static func addresses(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw StreamTaskError(
                .hostNotFound,
                "could not resolve the host name: \(reason)",
                host: host,
                port: port,
                errno: status == EAI_SYSTEM ? errno : nil
            )
        }
        defer { freeaddrinfo(list) }
        var results: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            if let address = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    results.append(
                        SocketAddress(
                            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }, host: host))
                case AF_INET6:
                    results.append(
                        SocketAddress(
                            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }, host: host))
                default:
                    break
                }
            }
            entry = info.pointee.ai_next
        }
        if results.isEmpty {
            throw StreamTaskError(.hostNotFound, "the host name has no IPv4 or IPv6 address", host: host, port: port)
        }
        return results
    }
}

/// A SwiftNIO `Resolver` that answers with addresses resolved beforehand.
struct ResolvedAddresses: Resolver, Sendable {
    let addresses: [SocketAddress]
    let eventLoop: any EventLoop

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        eventLoop.makeSucceededFuture(addresses.filter { $0.protocol == .inet })
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        eventLoop.makeSucceededFuture(addresses.filter { $0.protocol == .inet6 })
    }

    func cancelQueries() {}
}
