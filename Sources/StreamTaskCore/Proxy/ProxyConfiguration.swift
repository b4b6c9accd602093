//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// How a session's tasks reach their hosts: directly, through a proxy, or as the process's
/// environment says (the default).
///
/// ```swift
/// let configuration = StreamSessionConfiguration.default
/// configuration.proxy = .httpConnect(host: "proxy.example.com", port: 3128)
/// configuration.proxy = .socks5(host: "127.0.0.1", port: 1080,
///                               credentials: ProxyCredentials(username: "me", password: "secret"))
/// configuration.proxy = try ProxyConfiguration(url: "socks5h://me:secret@127.0.0.1:1080")
/// configuration.proxy = .direct
/// ```
///
/// A struct rather than an enum so that it can grow without
/// breaking code that uses it.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    enum Mode: Sendable, Hashable {
        case direct
        /// `nil`: the process's environment, read when each task starts connecting.
        case environment([String: String]?)
        case server(ProxyEndpoint)
    }

    let mode: Mode

    /// How long the handshake with the proxy may take once connected to it, in seconds; 0 means
    /// no limit of its own. The session's connect timeout also bounds it.
    public var handshakeTimeout: TimeInterval

    init(_ mode: Mode, handshakeTimeout: TimeInterval = 30) {
        self.mode = mode
        self.handshakeTimeout = handshakeTimeout
    }

    /// Every task connects straight to its host, whatever the environment says.
    public static var direct: ProxyConfiguration { ProxyConfiguration(.direct) }

    /// The default: the proxy named by the process's environment, following curl's conventions.
    ///
    /// When a task starts connecting it reads `https_proxy` (then `HTTPS_PROXY`, `all_proxy`,
    /// `ALL_PROXY`; the first one set and not empty wins) and skips the proxy for hosts listed
    /// in `no_proxy` (or `NO_PROXY`). The values are proxy URLs such as `http://proxy:3128` or
    /// `socks5h://user:password@proxy:1080`. See <doc:Proxies> for every rule.
    public static var environment: ProxyConfiguration { ProxyConfiguration(.environment(nil)) }

    /// Like ``environment``, with these variables instead of the process's.
    public static func environment(_ variables: [String: String]) -> ProxyConfiguration {
        ProxyConfiguration(.environment(variables))
    }

    /// An HTTP proxy that opens a tunnel for each task with `CONNECT host:port`.
    ///
    /// - Parameters:
    ///   - host: The proxy's host name or address.
    ///   - port: The proxy's port.
    ///   - credentials: Sent as `Proxy-Authorization: Basic`, if given.
    ///   - tls: When set, the connection to the proxy itself is TLS (an `https://` proxy), and
    ///     the proxy's certificate is checked against its host name with this configuration.
    ///     The tunnel then carries the task's own bytes, which may start TLS with the target too.
    public static func httpConnect(
        host: String,
        port: Int,
        credentials: ProxyCredentials? = nil,
        tls: StreamTLSConfiguration? = nil
    ) -> ProxyConfiguration {
        var endpoint = ProxyEndpoint(kind: .httpConnect, host: host, port: port, credentials: credentials)
        endpoint.tls = tls
        return ProxyConfiguration(.server(endpoint))
    }

    /// A SOCKS5 proxy (RFC 1928), with username and password authentication (RFC 1929) when
    /// `credentials` are given.
    ///
    /// - Parameters:
    ///   - host: The proxy's host name or address.
    ///   - port: The proxy's port; 1080 by default.
    ///   - credentials: The username and password to offer, if the proxy asks for them.
    ///   - resolvesHostNames: `true` (the default, like `socks5h://`) sends the task's host name
    ///     to the proxy, which resolves it; `false` (like `socks5://`) resolves it here and sends
    ///     the address.
    public static func socks5(
        host: String,
        port: Int = 1080,
        credentials: ProxyCredentials? = nil,
        resolvesHostNames: Bool = true
    ) -> ProxyConfiguration {
        ProxyConfiguration(
            .server(
                ProxyEndpoint(
                    kind: .socks5,
                    host: host,
                    port: port,
                    credentials: credentials,
                    resolvesHostNamesAtProxy: resolvesHostNames
                )
            )
        )
    }

    /// A proxy given as a URL, as in the environment variables: `http://`, `https://` (TLS to
    /// the proxy itself, verified with secure defaults), `socks5://` or `socks5h://`, with
    /// optional percent-encoded credentials and a port (443 for `https://`, else 1080, when left
    /// out). A URL without a scheme is an HTTP proxy.
    ///
    /// - Throws: ``StreamTaskError/Code/invalidArgument`` for a URL that cannot be used,
    ///   including `socks4://`.
    public init(url: String) throws {
        self.init(.server(try ProxyURL.parse(url, source: nil)))
    }

    /// The proxy a task to `host` on `port` goes through, or `nil` for a direct connection.
    ///
    /// - Throws: ``StreamTaskError/Code/invalidArgument`` when the environment names a proxy
    ///   URL that cannot be used.
    func endpoint(forHost host: String, port: Int) throws -> ProxyEndpoint? {
        switch mode {
        case .direct:
            return nil
        case .server(let endpoint):
            return endpoint
        case .environment(let variables):
            let environment = ProxyEnvironment(variables: variables ?? ProcessInfo.processInfo.environment)
            return try environment.endpoint(host: host, port: port)
        }
    }

    public var description: String {
        switch mode {
        case .direct: return "direct"
        case .environment(nil): return "environment"
        case .environment(.some): return "environment (given variables)"
        case .server(let endpoint): return endpoint.description
        }
    }
}
