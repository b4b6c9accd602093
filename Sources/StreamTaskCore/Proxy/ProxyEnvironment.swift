//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The proxy that a set of environment variables names for stream tasks, by curl's rules.
///
/// Stream tasks are not URLs, so there is no URL scheme to pick `<scheme>_proxy` by. They use
/// `https_proxy`: a stream task is an opaque byte stream, like the TLS stream of an `https://`
/// request, and reaches its host through an HTTP proxy the same way, with a `CONNECT` tunnel.
/// `http_proxy` is not read: it names a proxy that forwards plain HTTP requests, and many such
/// proxies refuse `CONNECT` to any port but 443. Then `all_proxy`, which curl uses for every
/// scheme without a variable of its own.
///
/// - The lowercase name is read before the uppercase one; a variable set to the empty string
///   counts as unset, as in curl.
/// - `no_proxy` (or `NO_PROXY`) lists the hosts that connect directly; see ``NoProxyList``.
struct ProxyEnvironment {
    /// The variables read for the proxy, in order; the first one set and not empty wins.
    static let proxyVariables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    static let noProxyVariables = ["no_proxy", "NO_PROXY"]

    let variables: [String: String]

    /// The proxy variable in effect and its value.
    var proxyVariable: (name: String, value: String)? {
        Self.first(of: Self.proxyVariables, in: variables)
    }

    var noProxy: NoProxyList? {
        Self.first(of: Self.noProxyVariables, in: variables).map { NoProxyList($0.value) }
    }

    /// The proxy for a task to `host` on `port`, or `nil` to connect directly.
    ///
    /// - Throws: ``StreamTaskError/Code/invalidArgument`` when the variable in effect holds a
    ///   URL that cannot be used; the task fails rather than silently going direct.
    func endpoint(host: String, port: Int) throws -> ProxyEndpoint? {
        guard let (name, value) = proxyVariable else { return nil }
        if let noProxy, noProxy.matches(host: host, port: port) { return nil }
        return try ProxyURL.parse(value, source: name)
    }

    private static func first(of names: [String], in variables: [String: String]) -> (name: String, value: String)? {
        for name in names {
            if let value = variables[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }
}
