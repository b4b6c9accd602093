//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CDNSSDQuiet
import Dispatch
import Foundation

/// The one serial queue that every call into the DNS-SD library, and every reply from it, runs
/// on: the module's daemon state needs no lock, and no operation has a thread of its own.
enum DNSSDQueue {
    static let queue = DispatchQueue(label: "StreamTaskDNSSD")

    /// Runs `body` on the queue.
    ///
    /// Avahi's compatibility layer prints a warning to standard error on its first call unless
    /// `AVAHI_COMPAT_NOWARN` is set, and a library must not print: the module's C part sets it
    /// as the program loads (`CDNSSDQuiet`), before other threads could be reading the
    /// environment. (On Darwin the system's library prints nothing.)
    static func async(_ body: @escaping @Sendable () -> Void) {
        _ = silencedAtLoad
        queue.async(execute: body)
    }

    /// What the C part did as the program loaded (see `dnssd_quiet.h`). Read once; referring to
    /// it also keeps that load-time code in every link.
    static let silencedAtLoad = stk_dnssd_quiet()

    /// Starts a request on the queue and waits for its result. If the waiting Swift task is
    /// cancelled, the request is told so and ends with ``DNSSDError/Code/cancelled``.
    static func perform<Request: DaemonRequest>(_ request: Request) async throws -> Request.Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Request.Value, any Error>) in
                start(request) { continuation.resume(with: $0) }
            }
        } onCancel: {
            async { request.cancel() }
        }
    }

    /// Starts a request on the queue; `completion` gets its result, on the queue. For callers
    /// that are not `async` (`NetService`, which must not need a free thread of Swift's pool).
    static func start<Request: DaemonRequest>(
        _ request: Request, completion: @escaping @Sendable (Result<Request.Value, any Error>) -> Void
    ) {
        async { request.start(completion) }
    }
}

/// A request to the daemon with one result, carried out on ``DNSSDQueue``.
protocol DaemonRequest: AnyObject, Sendable {
    associatedtype Value: Sendable
    /// Starts the request; it calls `completion` exactly once. Called on the queue.
    func start(_ completion: @escaping @Sendable (Result<Value, any Error>) -> Void)
    /// The waiting Swift task was cancelled: end the request, failing it unless it has finished.
    /// Called on the queue, possibly before ``start(_:)``.
    func cancel()
}
