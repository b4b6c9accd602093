//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SwiftNIO's errors into ``StreamTaskError``s that say what happened.
enum ChannelErrorMapper {
    /// An error on an established connection.
    static func map(_ error: any Error) -> StreamTaskError {
        if let error = error as? StreamTaskError { return error }
        if let error = error as? IOError {
            let code = error.errnoCode
            switch code {
            case ECONNRESET:
                return StreamTaskError(
                    .connectionReset, "the peer reset the connection", errno: code, underlying: error)
            case EPIPE:
                return StreamTaskError(
                    .connectionReset,
                    "the peer closed the connection while data was being sent",
                    errno: code,
                    underlying: error
                )
            case ETIMEDOUT:
                return StreamTaskError(
                    .connectionClosed,
                    "the connection timed out: the peer stopped answering",
                    errno: code,
                    underlying: error
                )
            default:
                return StreamTaskError(.connectionClosed, "the connection failed", errno: code, underlying: error)
            }
        }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed:
                return StreamTaskError(.connectionClosed, "the connection is closed", underlying: error)
            default:
                return StreamTaskError(.connectionClosed, "the connection failed: \(error)", underlying: error)
            }
        }
        return StreamTaskError(.connectionClosed, "the connection failed: \(error)", underlying: error)
    }

    /// An error while connecting to `host` on `port`.
    static func mapConnect(_ error: any Error, host: String, port: Int, timeout: TimeInterval) -> StreamTaskError {
        if let error = error as? StreamTaskError { return error.at(host: host, port: port) }
        if let error = error as? NIOConnectionError {
            // Prefer the most telling per-address failure: refused, then unreachable, then any.
            let failures = error.connectionErrors.map { mapConnect($0.error, host: host, port: port, timeout: timeout) }
            for code in [StreamTaskError.Code.connectionRefused, .unreachable, .connectTimeout] {
                if let failure = failures.first(where: { $0.code == code }) { return failure }
            }
            if let failure = failures.first { return failure }
            return StreamTaskError(
                .hostNotFound, "the host name did not resolve", host: host, port: port, underlying: error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return connectTimeout(host: host, port: port, timeout: timeout)
        }
        if let error = error as? IOError {
            let code = error.errnoCode
            switch code {
            case ECONNREFUSED:
                return StreamTaskError(
                    .connectionRefused,
                    "could not connect: connection refused (nothing listens on that port)",
                    host: host, port: port, errno: code, underlying: error
                )
            case ENETUNREACH, EHOSTUNREACH:
                return StreamTaskError(
                    .unreachable,
                    "could not connect: no route to the host",
                    host: host, port: port, errno: code, underlying: error
                )
            case ETIMEDOUT:
                return StreamTaskError(
                    .connectTimeout,
                    "could not connect: the connection attempt timed out",
                    host: host, port: port, errno: code, underlying: error
                )
            case ECONNRESET:
                return StreamTaskError(
                    .connectionReset,
                    "could not connect: the peer reset the connection while it was being set up",
                    host: host, port: port, errno: code, underlying: error
                )
            default:
                // The errno's own text completes the description; SwiftNIO's adds it again.
                return StreamTaskError(
                    .connectionFailed,
                    "could not connect",
                    host: host, port: port, errno: code, underlying: error
                )
            }
        }
        return StreamTaskError(
            .connectionFailed, "could not connect: \(error)", host: host, port: port, underlying: error)
    }

    static func connectTimeout(host: String, port: Int, timeout: TimeInterval) -> StreamTaskError {
        StreamTaskError(
            .connectTimeout,
            "could not connect within \(timeout) s (name resolution and connection)",
            host: host,
            port: port
        )
    }
}
