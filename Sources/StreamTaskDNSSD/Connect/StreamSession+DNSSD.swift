//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

extension StreamSession {
    /// Resolves a DNS-SD service and returns a task connected to it, like
    /// `URLSession.streamTask(with: NetService)`.
    ///
    /// The service is resolved before any I/O; then each of its addresses is tried in turn
    /// until one connects. Unlike Apple's method, this one is `async` and returns the task
    /// already resumed and connected (a ``StreamTask`` names one host and port, which is known
    /// only once the service has resolved). Each connection attempt is bounded by the
    /// session's ``StreamSessionConfiguration/timeoutIntervalForConnect``.
    ///
    /// - Parameters:
    ///   - service: The service, for example from a ``DNSSDBrowser``.
    ///   - resolveTimeout: How long resolving may take, in seconds.
    /// - Throws: ``DNSSDError/Code/serviceNotFound`` when the service no longer resolves (it
    ///   went away); ``DNSSDError/Code/connectFailed`` when no address accepted a connection;
    ///   ``DNSSDError/Code/cancelled`` when the Swift task is cancelled.
    public func streamTask(with service: DNSSDService, resolveTimeout: TimeInterval = 10) async throws -> StreamTask {
        try await streamTask(with: try await service.resolve(timeout: resolveTimeout))
    }

    /// Returns a task connected to a service that is already resolved, trying each of its
    /// addresses in turn until one connects. The connection is direct: the session's proxy
    /// setting does not apply to services found on the local network.
    ///
    /// - Throws: ``DNSSDError/Code/connectFailed`` when no address accepted a connection (or
    ///   the service had none); ``DNSSDError/Code/cancelled`` when the Swift task is cancelled.
    public func streamTask(with resolved: DNSSDResolvedService) async throws -> StreamTask {
        var failures: [String] = []
        var lastError: (any Error)?
        for address in resolved.addresses {
            let host = address.hostLiteral
            // Directly, never through the session's proxy: a service found by DNS-SD is on the
            // local network (often at a link-local address no proxy could reach).
            let task = streamTask(withHostName: host, port: resolved.port, proxy: .direct)
            task.resume()
            do {
                // An empty write completes once the connection is up, or fails with the
                // connect error; it sends nothing.
                try await task.write(Data(), timeout: 0)
                return task
            } catch {
                task.cancel()
                if Task.isCancelled {
                    throw DNSSDError(.cancelled, "connecting to \(resolved.service) was cancelled", underlying: error)
                }
                failures.append("\(host) port \(resolved.port): \(error)")
                lastError = error
            }
        }
        let tried =
            failures.isEmpty ? "it has no addresses" : "every address failed: " + failures.joined(separator: "; ")
        throw DNSSDError(.connectFailed, "could not connect to \(resolved.service): \(tried)", underlying: lastError)
    }
}
