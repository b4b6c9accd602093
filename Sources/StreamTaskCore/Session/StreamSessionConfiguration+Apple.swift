//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// `URLSessionConfiguration`'s properties, with Apple's names and defaults.
extension StreamSessionConfiguration {
    /// The identifier of a background configuration on Darwin; kept, with no effect (the
    /// library has no background sessions).
    public var identifier: String? {
        get { self[\.identifier] }
        set { self[\.identifier] = newValue }
    }

    /// How long a task may wait for its connection before it fails with a timeout, in seconds;
    /// 60 by default, 0 (or `.infinity`) for no limit. It bounds name resolution, the TCP handshake and any
    /// proxy handshake together, for stream and data tasks. Once connected, each read and write
    /// of a stream task waits as long as its own `timeout` argument says.
    ///
    /// A data task, once connected, applies it as Apple's does: as an idle timeout. While the
    /// task waits for the server (for the response head, then for more of the body), the server
    /// must send something at least this often; any bytes start the wait again, so a body that
    /// keeps coming, however slowly, never times out. A server silent for longer fails the task
    /// with `timedOut` (`URLError.timedOut`). The wait is not timed while the delegate decides
    /// what to do with the response, while the task is suspended, or while the body waits for
    /// its owner to take it.
    public var timeoutIntervalForRequest: TimeInterval {
        get { self[\.timeoutIntervalForRequest] }
        set { self[\.timeoutIntervalForRequest] = newValue }
    }

    /// The longest a data task may take as a whole, in seconds, from its first `resume()`;
    /// seven days by default, as Apple's. One that has neither completed nor become a stream
    /// by then fails with `timedOut`. A stream task's connection lives as long as you keep it.
    public var timeoutIntervalForResource: TimeInterval {
        get { self[\.timeoutIntervalForResource] }
        set { self[\.timeoutIntervalForResource] = newValue }
    }

    /// The most connections that data tasks open to one host at once; 6 by default, as on
    /// macOS. A data task over the limit waits, unconnected, until one of that host's data
    /// tasks completes. Stream tasks are not counted (``maximumConnectionsPerHost`` limits
    /// them, and data tasks too when it is lower).
    public var httpMaximumConnectionsPerHost: Int {
        get { self[\.httpMaximumConnectionsPerHost] }
        set { self[\.httpMaximumConnectionsPerHost] = newValue }
    }

    /// The oldest TLS version a task accepts: a view of ``tls``'s
    /// ``StreamTLSConfiguration/minimumVersion``. TLS 1.2 by default, the library's secure
    /// default. DTLS versions are not TLS versions and are ignored.
    public var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
        get { tls.minimumVersion.protocolVersion }
        set {
            guard let version = StreamTLSConfiguration.Version(newValue) else { return }
            update { $0.tls.minimumVersion = version }
        }
    }

    /// The newest TLS version a task offers: a view of ``tls``'s
    /// ``StreamTLSConfiguration/maximumVersion`` (TLS 1.3 when that is unset, the newest the
    /// library speaks). DTLS versions are not TLS versions and are ignored.
    public var tlsMaximumSupportedProtocolVersion: tls_protocol_version_t {
        get { (tls.maximumVersion ?? .tls1_3).protocolVersion }
        set {
            guard let version = StreamTLSConfiguration.Version(newValue) else { return }
            update { $0.tls.maximumVersion = version == .tls1_3 ? nil : version }
        }
    }

    /// The proxies tasks use, in Apple's dictionary form (``kCFNetworkProxiesHTTPSEnable``,
    /// ``kCFNetworkProxiesHTTPSProxy``, ``kCFNetworkProxiesHTTPSPort``, and the same for
    /// `SOCKS` and `HTTP`). `nil`, the default, means the system's settings, which on Linux are
    /// the environment's (`https_proxy`, `all_proxy`, `no_proxy`); an empty dictionary, or one
    /// with no proxy enabled, means none. Setting it sets ``proxy``: an enabled HTTPS proxy
    /// first, then SOCKS (version 5, host names resolved by the proxy), then HTTP (used with
    /// `CONNECT`, as a stream task needs); entries the library does not know are kept and
    /// ignored. Reading it gives back what was set.
    public var connectionProxyDictionary: [AnyHashable: Any]? {
        get { self[\.connectionProxyDictionary]?.entries }
        set {
            let proxy = newValue.map(ProxyConfiguration.init(proxyDictionary:)) ?? .environment
            update {
                $0.connectionProxyDictionary = newValue.map(KeptDictionary.init(entries:))
                $0.proxy = proxy
            }
        }
    }

    /// Header fields every data task's request carries besides its own (`nil` by default):
    /// string keys, with string (or number) values. A field the request sets itself keeps the
    /// request's value, as with Apple's, and `Host`, `Connection`, `Content-Length` and
    /// `Transfer-Encoding` here are ignored, since the task sets them. Stream tasks send no
    /// headers and ignore it.
    public var httpAdditionalHeaders: [AnyHashable: Any]? {
        get { self[\.httpAdditionalHeaders]?.entries }
        set { self[\.httpAdditionalHeaders] = newValue.map(KeptDictionary.init(entries:)) }
    }

    // MARK: Accepted with no effect on Linux

    /// Kept, with no effect: a task on Linux does not wait for connectivity, it fails at once
    /// when the network cannot reach its host (`false` by default, as Apple's).
    public var waitsForConnectivity: Bool {
        get { self[\.waitsForConnectivity] }
        set { self[\.waitsForConnectivity] = newValue }
    }

    /// Kept, with no effect: Linux does not mark interfaces as cellular (`true` by default).
    public var allowsCellularAccess: Bool {
        get { self[\.allowsCellularAccess] }
        set { self[\.allowsCellularAccess] = newValue }
    }

    /// Kept, with no effect: Linux does not mark interfaces as expensive (`true` by default).
    public var allowsExpensiveNetworkAccess: Bool {
        get { self[\.allowsExpensiveNetworkAccess] }
        set { self[\.allowsExpensiveNetworkAccess] = newValue }
    }

    /// Kept, with no effect: Linux has no Low Data Mode (`true` by default).
    public var allowsConstrainedNetworkAccess: Bool {
        get { self[\.allowsConstrainedNetworkAccess] }
        set { self[\.allowsConstrainedNetworkAccess] = newValue }
    }

    /// Kept, with no effect: the library has no background sessions (`false` by default).
    public var isDiscretionary: Bool {
        get { self[\.isDiscretionary] }
        set { self[\.isDiscretionary] = newValue }
    }

    /// Kept, with no effect: the library has no background sessions (`true` by default).
    public var sessionSendsLaunchEvents: Bool {
        get { self[\.sessionSendsLaunchEvents] }
        set { self[\.sessionSendsLaunchEvents] = newValue }
    }

    /// Kept, with no effect: the library has no background sessions.
    public var sharedContainerIdentifier: String? {
        get { self[\.sharedContainerIdentifier] }
        set { self[\.sharedContainerIdentifier] = newValue }
    }

    /// Kept, with no effect (`false` by default).
    public var shouldUseExtendedBackgroundIdleMode: Bool {
        get { self[\.shouldUseExtendedBackgroundIdleMode] }
        set { self[\.shouldUseExtendedBackgroundIdleMode] = newValue }
    }

    /// Kept, with no effect: data tasks send one request per connection at a time (`false` by
    /// default, as Apple's).
    public var httpShouldUsePipelining: Bool {
        get { self[\.httpShouldUsePipelining] }
        set { self[\.httpShouldUsePipelining] = newValue }
    }

    /// Kept, with no effect: the library has no cookie store (`true` by default).
    public var httpShouldSetCookies: Bool {
        get { self[\.httpShouldSetCookies] }
        set { self[\.httpShouldSetCookies] = newValue }
    }
}
