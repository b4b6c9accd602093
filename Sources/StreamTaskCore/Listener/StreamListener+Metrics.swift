//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamListener {
    /// What a listener has done since it was made.
    public struct Metrics: Sendable, Equatable {
        /// Connections accepted and handed to ``StreamListener/connections``.
        public var acceptedConnections = 0
        /// Connections closed at accept, unread, because their peer had
        /// ``Configuration/maximumConnectionsPerAddress`` connections open already.
        public var refusedOverAddressLimit = 0
    }

    /// The listener's counts so far.
    public var metrics: Metrics {
        state.withLockedValue { $0.metrics }
    }
}
