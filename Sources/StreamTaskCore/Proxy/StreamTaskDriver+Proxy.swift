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
import NIOSSL

/// A task's way through a proxy: the proxy, and what to ask it for.
struct ProxyRoute {
    let proxy: ProxyEndpoint
    /// What the proxy is asked to connect to: the task's host name (resolved by the proxy), or
    /// its address, resolved here for `socks5://`.
    let target: SOCKS5Handshake.Target
}

extension StreamTaskDriver {
    /// Resolves what the task connects to: the proxy's addresses when `proxy` is given (and,
    /// for a SOCKS5 proxy that does not resolve names, the target's address too), else the
    /// host's. Resolution failures come back as the task's final errors.
    func resolveAddresses(
        through proxy: ProxyEndpoint?, timeout: TimeInterval
    )
        -> EventLoopFuture<(addresses: [SocketAddress], route: ProxyRoute?)>
    {
        if let addressResolver {
            return eventLoop.makeFutureWithTask { try await addressResolver() }.map { ($0, nil) }
        }
        guard let proxy else {
            return NameResolver.resolve(host: host, port: port, on: eventLoop).map { ($0, nil) }
        }
        let (host, port) = (self.host, self.port)
        let proxyAddresses = NameResolver.resolve(host: proxy.host, port: proxy.port, on: eventLoop)
            .flatMapErrorThrowing { error in
                throw ProxyErrorMapper.mapConnect(error, proxy: proxy, host: host, port: port, timeout: timeout)
            }
        let literal = SOCKS5Handshake.target(host: host, port: port)
        guard proxy.kind == .socks5, !proxy.resolvesHostNamesAtProxy, case .name = literal else {
            return proxyAddresses.map { ($0, ProxyRoute(proxy: proxy, target: literal)) }
        }
        return proxyAddresses.flatMap { addresses in
            NameResolver.resolve(host: host, port: port, on: self.eventLoop).flatMapThrowing { targets in
                guard let address = targets.first, let bytes = IPAddressBytes.parse(address.ipAddress ?? "") else {
                    throw StreamTaskError(.hostNotFound, "the host name has no usable address", host: host, port: port)
                }
                return (addresses, ProxyRoute(proxy: proxy, target: .address(bytes, port: port)))
            }
        }
    }

    /// Runs the proxy handshake on `channel`, connected to the route's proxy, then hands the
    /// channel to the task. A task that completes first closes the channel (see `Phase`).
    func openTunnel(on channel: any Channel, route: ProxyRoute, timeout: TimeInterval) {
        holdConnectingChannel(channel)
        configuration.logger.debug(
            "proxy handshake",
            metadata: ["task": "\(taskIdentifier)", "proxy": "\(route.proxy)"]
        )
        let promise = eventLoop.makePromise(of: Void.self)
        let seconds = configuration.proxy.handshakeTimeout
        let limit: TimeAmount? = seconds > 0 ? .seconds(seconds) : nil
        // For an HTTPS proxy: why its certificate was refused, if it was.
        let proxyTLSRefusal = NIOLoopBoundBox<StreamTaskError?>(nil, eventLoop: eventLoop)
        let proxyTLS = route.proxy.tls.map { underTransportSecurity($0, host: route.proxy.host) }
        do {
            let handlers = channel.pipeline.syncOperations
            if let tls = proxyTLS {
                // TLS to the proxy itself, under the CONNECT handshake and everything after it.
                let ssl = try makeTLSHandler(role: .client(tls), peerName: route.proxy.host) { _, failure in
                    proxyTLSRefusal.value = failure
                }
                try handlers.addHandler(ReadPassCloseGuard())
                try handlers.addHandler(ssl)
            }
            // Over the kinds' enum, not the public struct: a kind added later must be handled here.
            switch route.proxy.kind.base {
            case .httpConnect:
                let handshake = HTTPConnectHandshake(host: host, port: port, credentials: route.proxy.credentials)
                try handlers.addHandler(ProxyHandshakeHandler(handshake: handshake, timeout: limit, promise: promise))
            case .socks5:
                let handshake = SOCKS5Handshake(target: route.target, credentials: route.proxy.credentials)
                try handlers.addHandler(ProxyHandshakeHandler(handshake: handshake, timeout: limit, promise: promise))
            }
        } catch {
            promise.fail(error)
        }
        // Runs before the handshake handler leaves the pipeline: the task's handler is in place
        // when the bytes read past the proxy's reply are passed on.
        promise.futureResult.whenComplete { result in
            self.holdConnectingChannel(nil)
            guard self.isConnecting else {
                channel.close(promise: nil)
                return
            }
            switch result {
            case .success:
                self.connectionEstablished(channel, timeout: timeout)
            case .failure(let error):
                channel.close(promise: nil)
                if let tls = proxyTLS, proxyTLSRefusal.value != nil || TLSErrorMapper.isTLSError(error) {
                    let failure = TLSErrorMapper.map(error, verification: proxyTLSRefusal.value, configuration: tls)
                    let message = "TLS to the \(route.proxy) failed: \(failure.message)"
                    self.connectFailed(
                        StreamTaskError(failure.code, message, host: self.host, port: self.port, underlying: error))
                    return
                }
                self.connectFailed(
                    ProxyErrorMapper.mapHandshake(error, proxy: route.proxy, host: self.host, port: self.port))
            }
        }
    }

    /// The error for a failure to connect, with or without a proxy.
    func connectError(_ error: any Error, through proxy: ProxyEndpoint?, timeout: TimeInterval) -> StreamTaskError {
        guard let proxy else { return ChannelErrorMapper.mapConnect(error, host: host, port: port, timeout: timeout) }
        return ProxyErrorMapper.mapConnect(error, proxy: proxy, host: host, port: port, timeout: timeout)
    }

    /// The error for the connect timeout, with or without a proxy.
    func connectTimeoutError(through proxy: ProxyEndpoint?, timeout: TimeInterval) -> StreamTaskError {
        guard let proxy else { return ChannelErrorMapper.connectTimeout(host: host, port: port, timeout: timeout) }
        return ProxyErrorMapper.connectTimeout(proxy: proxy, host: host, port: port, timeout: timeout)
    }
}
