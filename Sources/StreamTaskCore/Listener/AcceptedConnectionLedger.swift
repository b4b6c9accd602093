//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers
import NIOCore

/// Counts the accepted connections that the consumer of ``StreamListener/connections`` has not
/// taken yet, so that the listener stops accepting while too many wait.
///
/// A connection is counted from the moment the listening channel reads it until either the
/// consumer takes its task, or it closes before its task was handed over (a refused or failed
/// connection). Each of those ends releases the count once. The listening channel's
/// ``AcceptLimitHandler`` reads ``mayAcceptMore`` on its own loop before every read, and every
/// release that leaves room asks that loop to look again, so a release can never be missed:
/// either it happened before the handler looked, or its request runs after.
final class AcceptedConnectionLedger: Sendable {
    private struct State {
        /// Connections accepted and not yet taken by the consumer or closed before hand-over.
        var waiting = 0
        /// Of those, the ones whose task has not been handed to ``StreamListener/connections``.
        var notHandedOver: Set<ObjectIdentifier> = []
        /// Asks the listening channel's loop to look at ``mayAcceptMore`` again.
        var wake: (@Sendable () -> Void)?
    }

    /// The most connections that may wait for the consumer.
    let limit: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether fewer than ``limit`` connections wait.
    var mayAcceptMore: Bool {
        state.withLockedValue { $0.waiting < limit }
    }

    /// Sets what asks the listening channel's loop to look again (as its handler is added), or
    /// clears it (as the handler is removed).
    func setWake(_ wake: (@Sendable () -> Void)?) {
        state.withLockedValue { $0.wake = wake }
    }

    /// The listening channel read `child`: it waits from now on.
    func accepted(_ child: any Channel) {
        let id = ObjectIdentifier(child)
        state.withLockedValue { state in
            state.waiting += 1
            state.notHandedOver.insert(id)
        }
        child.closeFuture.whenComplete { _ in self.closed(id) }
    }

    /// `child`'s task is in ``StreamListener/connections``: from now on only the consumer
    /// taking it releases its count.
    func handedOver(_ child: any Channel) {
        _ = state.withLockedValue { $0.notHandedOver.remove(ObjectIdentifier(child)) }
    }

    /// The consumer took a task (or no one ever will: the sequence has ended).
    func taken() {
        release { _ in true }
    }

    /// A child closed; its count goes only if its task was never handed over.
    private func closed(_ id: ObjectIdentifier) {
        release { $0.notHandedOver.remove(id) != nil }
    }

    private func release(if shouldRelease: (inout State) -> Bool) {
        let wake = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard shouldRelease(&state) else { return nil }
            state.waiting -= 1
            return state.waiting < limit ? state.wake : nil
        }
        wake?()
    }
}
