import Foundation
import NIOCore
import NIOPosix

extension StreamTask {
    /// The session granted a connection slot (at once, or when another task to the host ended).
    func connectionSlotGranted() {
        onLoop { self.startConnecting() }
    }

    private func startConnecting() {
        // A task that completed (was cancelled) meanwhile has already given its slot back.
        guard lifecycle == .idle else { return }
        lifecycle = .connecting
        let timeout = configuration.timeoutIntervalForConnect
        // The proxy, if any, comes first: through one, the task resolves and connects to it.
        let proxy: ProxyEndpoint?
        do {
            proxy = try configuration.proxy.endpoint(forHost: host, port: port)
        } catch {
            connectFailed(ChannelErrorMapper.mapConnect(error, host: host, port: port, timeout: timeout))
            return
        }
        if timeout > 0 {
            connectTimer = eventLoop.scheduleTask(in: .seconds(timeout)) {
                self.connectFailed(self.connectTimeoutError(through: proxy, timeout: timeout))
            }
        }
        configuration.logger.debug("resolving", metadata: ["task": "\(taskIdentifier)", "host": "\(proxy?.host ?? host)"])
        updateShared {
            $0.metrics.domainLookupStartDate = Date()
            $0.metrics.isProxyConnection = proxy != nil
            $0.metrics.proxyKind = proxy?.kind
        }
        resolveAddresses(through: proxy, timeout: timeout).whenComplete { result in
            guard self.lifecycle == .connecting else { return }
            switch result {
            case .failure(let error):
                self.connectFailed(self.connectError(error, through: proxy, timeout: timeout))
            case .success(let (addresses, route)):
                self.updateShared {
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
            .resolver(ResolvedAddresses(addresses: addresses, eventLoop: eventLoop))
            // The task's own timer bounds the whole connect; this bounds NIO's attempts with it.
            .connectTimeout(timeout > 0 ? .seconds(timeout) : .hours(24 * 365))
        bootstrap.connect(host: route?.proxy.host ?? host, port: route?.proxy.port ?? port).whenComplete { result in
            switch result {
            case .success(let channel):
                guard self.lifecycle == .connecting else {
                    channel.close(promise: nil)
                    return
                }
                if let route {
                    self.openTunnel(on: channel, route: route, timeout: timeout)
                } else {
                    self.connectionEstablished(channel, timeout: timeout)
                }
            case .failure(let error):
                guard self.lifecycle == .connecting else { return }
                self.connectFailed(self.connectError(error, through: route?.proxy, timeout: timeout))
            }
        }
    }

    /// The connection to the host is up (through the proxy's tunnel, if any): the task takes it.
    func connectionEstablished(_ channel: any Channel, timeout: TimeInterval) {
        connectTimer?.cancel()
        connectTimer = nil
        updateShared { $0.metrics.connectEndDate = Date() }
        do {
            if let dataTask {
                // The HTTP exchange goes in front of the task's handler.
                try installHTTPExchange(for: dataTask, on: channel)
            }
            try attach(channel)
        } catch {
            channel.close(promise: nil)
            connectFailed(ChannelErrorMapper.mapConnect(error, host: host, port: port, timeout: timeout))
        }
    }

    /// Takes over a channel: the task's handler joins its pipeline, and queued operations
    /// start once the channel is active (at once for a connected channel; for an accepted one,
    /// when it has been registered). Runs on the channel's event loop, which is the task's.
    func attach(_ channel: any Channel) throws {
        let handler = StreamTaskChannelHandler(task: self)
        self.handler = handler
        lifecycle = .running
        updateShared { $0.state = .running }
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    /// The channel is connected and registered: record its addresses and start the queue.
    func channelBecameActive(_ channel: any Channel) {
        guard case .notConnected = queue.connection else { return }
        updateShared { shared in
            shared.metrics.localAddress = channel.localAddress?.ipAddress
            shared.metrics.localPort = channel.localAddress?.port
            shared.metrics.remoteAddress = channel.remoteAddress?.ipAddress
            shared.metrics.remotePort = channel.remoteAddress?.port
        }
        configuration.logger.debug(
            "connected",
            metadata: ["task": "\(taskIdentifier)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"]
        )
        startWatchingRoutes(channel)
        run(queue.connected())
    }

    func connectFailed(_ error: StreamTaskError) {
        guard lifecycle == .connecting else { return }
        configuration.logger.debug("connect failed", metadata: ["task": "\(taskIdentifier)", "error": "\(error)"])
        run(queue.closed(error: error.at(host: host, port: port)), thenComplete: true)
    }

    // MARK: Channel events (from StreamTaskChannelHandler, on the event loop)

    func channelReceived(_ bytes: ByteBuffer) {
        let count = Int64(bytes.readableBytes)
        updateShared { $0.metrics.countOfBytesReceived += count }
        run(queue.received(bytes))
    }

    func channelReceiveCompleted() {
        run(queue.receiveCompleted())
    }

    func channelInputClosed() {
        // Under TLS, input closed from the TLS handler is the peer's close_notify: the stream
        // itself ends only when the transport says so (TransportInputObserver), and the
        // conversation may go on in plaintext after stopTLS.
        if tls.isActive {
            configuration.logger.debug("peer ended TLS (close_notify)", metadata: ["task": "\(taskIdentifier)"])
            tls.peerEndedTLS = true
            return
        }
        run(queue.inputEnded())
    }

    func channelWritabilityChanged(_ isWritable: Bool) {
        run(queue.writabilityChanged(isWritable))
    }

    func channelFailed(_ error: any Error) {
        if tlsHandshakeFailed(error) { return }
        if tls.closingByThisSide, TLSErrorMapper.isUncleanShutdown(error) {
            // This side closed the socket beneath TLS on purpose, without the peer's close_notify.
            return
        }
        let failure = tlsFailure(error) ?? ChannelErrorMapper.map(error)
        if failure.code == .tlsTruncated {
            // Before SwiftNIO SSL passes the end of input on as if it were an orderly one.
            run(queue.inputEnded(truncation: failure.at(host: host, port: port)))
        }
        configuration.logger.debug("connection error", metadata: ["task": "\(taskIdentifier)", "error": "\(failure)"])
        if channelFailure == nil { channelFailure = failure }
        handler?.close()
    }

    func channelClosed() {
        run(queue.closed(error: channelFailure), thenComplete: true)
    }
}
