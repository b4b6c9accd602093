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

private let systemSend = Glibc.send
private let systemClose = Glibc.close
private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin

private let systemSend = Darwin.send
private let systemClose = Darwin.close
private let noSignal: Int32 = 0
#endif

/// A plain blocking TCP connection from a chosen source address (Linux routes all of
/// 127.0.0.0/8 to loopback, so 127.0.0.2 is a second client host), for tests of what a server
/// does per peer address. Blocking calls: use it through ``offCooperativePool(_:)``.
public final class SourceBoundSocket: @unchecked Sendable {
    // @unchecked: `fd` is set once; `close()` is for the one thread that owns the socket.
    public private(set) var fd: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects from `source` (any port) to 127.0.0.1:`port`, on a thread of its own (the
    /// connect blocks).
    public static func connected(from source: String, port: Int) async throws -> SourceBoundSocket {
        try await offCooperativePool { Result { try SourceBoundSocket(from: source, to: "127.0.0.1", port: port) } }
            .get()
    }

    /// Connects from `source` (any port) to IPv4 `host`:`port`.
    public init(from source: String, to host: String, port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        do {
            var local = try Self.address(source, port: 0)
            try withUnsafePointer(to: &local) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    guard bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 else {
                        throw Failure(description: "bind \(source): errno \(errno)")
                    }
                }
            }
            var remote = try Self.address(host, port: port)
            try withUnsafePointer(to: &remote) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    guard connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 else {
                        throw Failure(description: "connect \(host):\(port): errno \(errno)")
                    }
                }
            }
        } catch {
            close()
            throw error
        }
    }

    private static func address(_ text: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else {
            throw Failure(description: "not an IPv4 address: \(text)")
        }
        return address
    }

    /// Writes all of `text`.
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count, noSignal) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads until the peer closes, or `seconds` pass; returns what arrived and whether the
    /// end came (a reset counts as an end). With `seconds` 0 it takes what has already arrived,
    /// the end included, without waiting.
    public func readToEnd(seconds: Double) -> (text: String, ended: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline.timeIntervalSinceNow
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, left > 0 ? Int32(left * 1000) + 1 : 0) > 0 else {
                if left > 0 { continue }
                return (String(decoding: received, as: UTF8.self), false)
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
    }

    /// Closes the socket (once).
    public func close() {
        if fd >= 0 {
            _ = systemClose(fd)
            fd = -1
        }
    }

    deinit { close() }
}
