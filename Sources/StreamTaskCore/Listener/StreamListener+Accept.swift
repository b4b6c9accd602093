//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamListener {
    /// A connection the bootstrap accepted: refused when its peer is over the per-address limit
    /// (before anything is read), otherwise made a task, which goes to ``connections`` once the
    /// connection is active (see ``AcceptedConnectionHandOver``). Throwing closes the channel.
    func accept(_ channel: any Channel) throws {
        let remote = channel.remoteAddress
        let group =
            configuration.maximumConnectionsPerAddress == nil
            ? nil : remote?.ipAddress.flatMap { PeerAddressGroup(ipAddress: $0) }
        guard admit(group) else {
            // Not by throwing: the bootstrap's own close of a channel whose initializer failed
            // could close its descriptor twice (seen as another connection's reads stalling).
            // This handler closes it once it is registered; nothing is read (autoRead is off).
            try channel.pipeline.syncOperations.addHandler(RefusedConnectionCloser())
            return
        }
        let adopted = session.adopt { id in
            StreamTask(
                session: session,
                identifier: id,
                host: remote?.ipAddress ?? "?",
                port: remote?.port ?? 0,
                origin: .accepted,
                eventLoop: channel.eventLoop
            )
        }
        guard let task = adopted else {
            release(group)
            throw StreamTaskError(.sessionInvalidated, "the listener's session was invalidated")
        }
        let accepted = state.withLockedValue { state -> Bool in
            guard !state.closed else { return false }
            state.open[task.taskIdentifier] = (task, channel.closeFuture)
            state.metrics.acceptedConnections += 1
            return true
        }
        guard accepted else {
            release(group)
            task.cancel()
            throw StreamTaskError(.listenerClosed, "the listener is shutting down")
        }
        channel.closeFuture.whenComplete { _ in
            // One critical section: whoever sees the connection gone from `openConnections`
            // also finds its address's slot free, so a new connection from it is not refused.
            self.state.withLockedValue { state in
                state.open.removeValue(forKey: task.taskIdentifier)
                state.release(group)
            }
        }
        try task.attach(channel)
        if let tls {
            task.startSecureConnection(asServerWith: tls)
        }
        let handOverHandler = AcceptedConnectionHandOver { [self] in handOver(task, of: channel) }
        try channel.pipeline.syncOperations.addHandler(handOverHandler, position: .first)
    }

    /// Puts `task`, whose `channel` has just become active, into ``connections``.
    private func handOver(_ task: StreamTask, of channel: any Channel) {
        ledger.handedOver(channel)
        if case .terminated = continuation.yield(task) {
            // Shut down since it was accepted: no one will take it.
            ledger.taken()
            task.cancel()
        }
    }

    /// Counts a connection from `group`; `false` when the group has its limit open.
    private func admit(_ group: PeerAddressGroup?) -> Bool {
        guard let group, let limit = configuration.maximumConnectionsPerAddress else { return true }
        let refused = state.withLockedValue { state -> Bool in
            let open = state.perAddress[group, default: 0]
            guard open < limit else {
                state.metrics.refusedOverAddressLimit += 1
                return true
            }
            state.perAddress[group] = open + 1
            return false
        }
        return !refused
    }

    /// A connection from `group` was never handed out.
    private func release(_ group: PeerAddressGroup?) {
        state.withLockedValue { $0.release(group) }
    }
}

extension StreamListener.State {
    /// A connection from `group` has closed (or was never handed out): its slot is free.
    mutating func release(_ group: PeerAddressGroup?) {
        guard let group else { return }
        let open = perAddress[group, default: 1] - 1
        perAddress[group] = open > 0 ? open : nil
    }
}

/// Closes a connection refused at accept as soon as it is active, having read nothing.
final class RefusedConnectionCloser: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func channelActive(context: ChannelHandlerContext) {
        context.close(promise: nil)
    }
}
