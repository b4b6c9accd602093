//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskDriver {
    /// Where the task's channel is; the machine's `connection` tells what operations see.
    enum Phase {
        /// No connection slot yet (suspended, or waiting behind other tasks to the host).
        case idle
        /// Resolving, connecting or in a proxy handshake; `timer` bounds it, and `channel`, once
        /// connected to the proxy, is closed if the task completes first.
        case connecting(timer: Scheduled<Void>?, channel: (any Channel)?)
        /// The task's handler is in the channel's pipeline.
        case attached(StreamTaskChannelHandler)
        case completed
    }

    var isConnecting: Bool {
        if case .connecting = phase { return true }
        return false
    }

    /// Whether the task's connection is up and still the task's (not closed, not handed over).
    package var hasChannel: Bool { handler != nil }

    /// Publishes `event` to the task's listeners and delegate, until the task completes.
    package func publish(_ event: StreamTaskEvent) {
        owner?.publish(event)
    }
}

extension StreamTaskDriver {
    /// Whether a read issued now would take its bytes at once, for tests and diagnostics.
    var readsTakeAtOnce: Bool { withMachine { $0.mayReadAtOnce } }

    /// Bytes received and not read yet.
    var unreadByteCount: Int { withMachine { $0.bufferedByteCount } }
}
