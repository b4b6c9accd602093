//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if !canImport(CFNetwork)
// CFNetwork's proxy dictionary keys, for `connectionProxyDictionary`, where CFNetwork is
// missing: code that spells them `kCFNetworkProxiesHTTPSEnable as String` ports unchanged.

/// Whether the HTTPS proxy is on (a number, 1 for on).
public let kCFNetworkProxiesHTTPSEnable = "HTTPSEnable"
/// The HTTPS proxy's host.
public let kCFNetworkProxiesHTTPSProxy = "HTTPSProxy"
/// The HTTPS proxy's port.
public let kCFNetworkProxiesHTTPSPort = "HTTPSPort"
/// Whether the HTTP proxy is on (a number, 1 for on).
public let kCFNetworkProxiesHTTPEnable = "HTTPEnable"
/// The HTTP proxy's host.
public let kCFNetworkProxiesHTTPProxy = "HTTPProxy"
/// The HTTP proxy's port.
public let kCFNetworkProxiesHTTPPort = "HTTPPort"
/// Whether the SOCKS proxy is on (a number, 1 for on).
public let kCFNetworkProxiesSOCKSEnable = "SOCKSEnable"
/// The SOCKS proxy's host.
public let kCFNetworkProxiesSOCKSProxy = "SOCKSProxy"
/// The SOCKS proxy's port.
public let kCFNetworkProxiesSOCKSPort = "SOCKSPort"
#endif

extension ProxyConfiguration {
    /// The proxy an Apple proxy dictionary names: an enabled HTTPS proxy (port 443 if none is
    /// given), else an enabled SOCKS proxy (port 1080), else an enabled HTTP proxy (port 80),
    /// each with a host; none of them means a direct connection.
    init(proxyDictionary entries: [AnyHashable: Any]) {
        let dictionary = ProxyDictionaryReader(entries: entries)
        if let (host, port) = dictionary.proxy(prefix: "HTTPS", defaultPort: 443) {
            self = .httpConnect(host: host, port: port)
        } else if let (host, port) = dictionary.proxy(prefix: "SOCKS", defaultPort: 1080) {
            self = .socks5(host: host, port: port)
        } else if let (host, port) = dictionary.proxy(prefix: "HTTP", defaultPort: 80) {
            self = .httpConnect(host: host, port: port)
        } else {
            self = .direct
        }
    }
}

/// Reads an Apple proxy dictionary's loosely typed values: flags and ports as numbers, Booleans
/// or strings, hosts as strings.
struct ProxyDictionaryReader {
    let entries: [AnyHashable: Any]

    /// The host and port of the proxy whose keys start with `prefix`, if it is enabled and has
    /// a host.
    func proxy(prefix: String, defaultPort: Int) -> (host: String, port: Int)? {
        guard flag(prefix + "Enable"), let host = string(prefix + "Proxy"), !host.isEmpty else { return nil }
        let port = integer(prefix + "Port").flatMap { (1...65535).contains($0) ? $0 : nil } ?? defaultPort
        return (host, port)
    }

    private func value(_ key: String) -> Any? {
        entries[AnyHashable(key)]
    }

    private func flag(_ key: String) -> Bool {
        switch value(key) {
        case let flag as Bool: flag
        case let number as Int: number != 0
        case let number as NSNumber: number.intValue != 0
        case let text as String: ["1", "true", "yes"].contains(text.lowercased())
        default: false
        }
    }

    private func integer(_ key: String) -> Int? {
        switch value(key) {
        case let number as Int: number
        case let number as NSNumber: number.intValue
        case let text as String: Int(text)
        default: nil
        }
    }

    private func string(_ key: String) -> String? {
        switch value(key) {
        case let text as String: text.trimmingCharacters(in: .whitespaces)
        case let text as NSString: (text as String).trimmingCharacters(in: .whitespaces)
        default: nil
        }
    }
}
