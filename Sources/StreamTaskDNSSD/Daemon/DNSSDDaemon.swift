//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CDNSSD

/// The DNS-SD daemon this module talks to: `avahi-daemon` through Avahi's compatibility
/// library on Linux, `mDNSResponder` on Darwin.
public enum DNSSDDaemon {
    /// Checks that the daemon answers, without browsing or advertising anything.
    ///
    /// - Throws: ``DNSSDError/Code/serviceNotRunning``, whose description says how to start the
    ///   daemon, when it does not answer.
    public static func checkReachable() async throws {
        try await DNSSDQueue.perform(ReachabilityCheck())
    }
}

/// Starts a browse for a type nobody advertises and stops it at once: the call fails when no
/// daemon (or, for Avahi, no D-Bus system bus) is there.
private final class ReachabilityCheck: DaemonRequest, @unchecked Sendable {
    // @unchecked Sendable: no state; used only on DNSSDQueue.queue.

    func start(_ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        do {
            let ref = try ServiceRef.start(doing: "reaching the DNS-SD daemon", context: self, onFailure: { _ in }) {
                ref, context in
                DNSServiceBrowse(ref, 0, 0, "_stk-check._tcp", "", ignoredReply, context)
            }
            ref.cancel()
            completion(.success(()))
        } catch {
            completion(.failure(error))
        }
    }

    func cancel() {}
}

private let ignoredReply: DNSServiceBrowseReply = { _, _, _, _, _, _, _, _ in }
