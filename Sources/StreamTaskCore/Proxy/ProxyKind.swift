//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Which kind of proxy a task went through; see ``StreamTaskMetrics/proxyKind``.
public struct ProxyKind: Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable {
        case httpConnect = "HTTP CONNECT"
        case socks5 = "SOCKS5"
    }

    let base: Base

    /// An HTTP proxy that opened a tunnel with `CONNECT`.
    public static let httpConnect = ProxyKind(base: .httpConnect)
    /// A SOCKS5 proxy.
    public static let socks5 = ProxyKind(base: .socks5)

    public var description: String { base.rawValue }
}

/// One proxy server: where it is, what it speaks, and how to authenticate to it.
struct ProxyEndpoint: Sendable, Hashable, CustomStringConvertible {
    var kind: ProxyKind
    var host: String
    var port: Int
    var credentials: ProxyCredentials?
    /// SOCKS5 only: send host names to the proxy (`socks5h`) rather than resolving them here.
    var resolvesHostNamesAtProxy = true
    /// HTTP only: speak TLS to the proxy itself (an `https://` proxy), with this configuration.
    var tls: StreamTLSConfiguration?

    /// For messages: "HTTP proxy 127.0.0.1:3128", "SOCKS5 proxy [::1]:1080".
    var description: String {
        let name =
            switch kind.base {
            case .socks5: "SOCKS5 proxy"
            case .httpConnect: tls == nil ? "HTTP proxy" : "HTTPS proxy"
            }
        return "\(name) \(StreamTaskError.endpoint(host: host, port: port))"
    }
}
