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

extension StreamTaskDriver {
    /// The session granted a connection slot (at once, or when another task to the host ended).
    func connectionSlotGranted() {
        onLoop { self.startConnecting() }
    }

    private func startConnecting() {
        eventLoop.preconditionInEventLoop()
        // A task that completed (was cancelled) meanwhile has already given its slot back.
        guard case .idle = phase else { return }
        let timeout = configuration.timeoutIntervalForRequest
        // The resolver keeps the low 16 bits of a port outside TCP's range (70000 would reach
        // 4464): such a port is the caller's mistake, said as such. (A service's task finds
        // its ports with its addresses.)
        guard addressResolver != nil || (1...65535).contains(port) else {
            phase = .connecting(timer: nil, channel: nil)
            connectFailed(
                StreamTaskError(
                    .invalidArgument, "the port \(port) is out of range: a TCP port is 1 to 65535", host: host,
                    port: port))
            return
        }
        // The proxy, if any, comes first: through one, the task resolves and connects to it.
        let proxy: ProxyEndpoint?
        do {
            proxy = try configuration.proxy.endpoint(forHost: host, port: port)
        } catch {
            phase = .connecting(timer: nil, channel: nil)
            connectFailed(ChannelErrorMapper.mapConnect(error, host: host, port: port, timeout: timeout))
            return
        }
        let timer =
            timeout > 0
            ? eventLoop.scheduleTask(in: .seconds(timeout)) {
                self.connectFailed(self.connectTimeoutError(through: proxy, timeout: timeout))
            } : nil
        phase = .connecting(timer: timer, channel: nil)
        configuration.logger.debug(
            "resolving", metadata: ["task": "\(taskIdentifier)", "host": "\(proxy?.host ?? host)"])
        owner?.withShared {
            $0.metrics.domainLookupStartDate = Date()
            $0.metrics.isProxyConnection = proxy != nil
            $0.metrics.proxyKind = proxy?.kind
        }
        resolveAddresses(through: proxy, timeout: timeout).whenComplete { result in
            guard self.isConnecting else { return }
            switch result {
            case .failure(let error):
                self.connectFailed(self.connectError(error, through: proxy, timeout: timeout))
            case .success(let (addresses, route)):
                self.owner?.withShared {
                    let now = Date()
                    $0.metrics.domainLookupEndDate = now
                    $0.metrics.connectStartDate = now
                }
                self.connect(to: addresses, route: route, timeout: timeout)
            }
        }
    }

    private func connect(to addresses: [SocketAddress], route: ProxyRoute?, timeout: TimeInterval) {
        let bootstrap = ClientBootstrap(group: eventLoop)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.writeBufferWaterMark, value: StreamTaskDriver.channelWriteWaterMark)
            .resolver(ResolvedAddresses(addresses: addresses, eventLoop: eventLoop))
            // The task's own timer bounds the whole connect; this bounds NIO's attempts with it.
            .connectTimeout(timeout > 0 ? .seconds(timeout) : .hours(24 * 365))
        bootstrap.connect(host: route?.proxy.host ?? host, port: route?.proxy.port ?? port).whenComplete { result in
            switch result {
            case .success(let channel):
                guard self.isConnecting else {
                    channel.close(promise: nil)
                    return
                }
                if let route {
                    self.openTunnel(on: channel, route: route, timeout: timeout)
                } else {
                    self.connectionEstablished(channel, timeout: timeout)
                }
            case .failure(let error):
                guard self.isConnecting else { return }
                self.connectFailed(self.connectError(error, through: route?.proxy, timeout: timeout))
            }
        }
    }

    /// While connecting: remembers the channel connected to a proxy, so that a task that
    /// completes during the handshake closes it (`nil` once the task has taken it).
    func holdConnectingChannel(_ channel: (any Channel)?) {
        guard case .connecting(let timer, _) = phase else { return }
        phase = .connecting(timer: timer, channel: channel)
    }

    /// The connection to the host is up (through the proxy's tunnel, if any): the task takes it.
    func connectionEstablished(_ channel: any Channel, timeout: TimeInterval) {
        eventLoop.preconditionInEventLoop()
        if case .connecting(let timer, _) = phase {
            timer?.cancel()
            phase = .connecting(timer: nil, channel: nil)
        }
        owner?.withShared { $0.metrics.connectEndDate = Date() }
        do {
            // What rides on the connection (a data task's exchange) goes in front of the
            // task's handler.
            for attachment in attachments {
                try attachment.install(on: channel, driver: self)
            }
            try takeOver(channel)
        } catch {
            channel.close(promise: nil)
            connectFailed(ChannelErrorMapper.mapConnect(error, host: host, port: port, timeout: timeout))
        }
    }

    /// Takes over a channel: the task's handler joins its pipeline, and queued operations
    /// start once the channel is active (at once for a connected channel; for an accepted one,
    /// when it has been registered). Runs on the channel's event loop, which is the task's.
    func takeOver(_ channel: any Channel) throws {
        eventLoop.preconditionInEventLoop()
        let handler = StreamTaskChannelHandler(driver: self)
        phase = .attached(handler)
        // A listener's task starts connected; a resumed one keeps its state (it may have
        // been suspended while it connected).
        _ = withMachine { $0.start() }
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    func connectFailed(_ error: StreamTaskError) {
        eventLoop.preconditionInEventLoop()
        guard isConnecting else { return }
        configuration.logger.debug("connect failed", metadata: ["task": "\(taskIdentifier)", "error": "\(error)"])
        step(thenComplete: true) { $0.closed(error: error.at(host: host, port: port)) }
    }
}
