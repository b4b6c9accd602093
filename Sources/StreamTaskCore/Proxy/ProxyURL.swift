//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Parses proxy URLs the way curl reads its proxy variables:
/// `[scheme://][user[:password]@]host[:port][/]`.
///
/// - No scheme means `http://`. Schemes are case-insensitive.
/// - `http://` is an HTTP CONNECT proxy; `socks5h://` a SOCKS5 proxy that resolves host names;
///   `socks5://` a SOCKS5 proxy given addresses resolved here.
/// - The port defaults to 1080, as in curl, for every scheme but `https://` (443).
/// - `https://` speaks TLS to the proxy itself, verified with secure defaults.
/// - User and password are percent-decoded; an IPv6 host is written in brackets.
/// - A trailing path (`http://proxy:3128/`) is ignored.
enum ProxyURL {
    static let defaultPort = 1080

    /// - Parameter source: the environment variable the URL came from, for error messages.
    static func parse(_ text: String, source: String?) throws -> ProxyEndpoint {
        let origin = source.map { " in \($0)" } ?? ""
        func invalid(_ why: String) -> StreamTaskError {
            StreamTaskError(.invalidArgument, "the proxy URL\(origin) \(why)")
        }

        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var scheme = "http"
        if let range = rest.range(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        }
        let kind: ProxyKind
        var resolvesAtProxy = true
        var usesTLS = false
        switch scheme {
        case "http":
            kind = .httpConnect
        case "socks5h":
            kind = .socks5
        case "socks5":
            kind = .socks5
            resolvesAtProxy = false
        case "https":
            kind = .httpConnect
            usesTLS = true
        case "socks4", "socks4a":
            throw invalid("uses \(scheme)://, which is not supported; use socks5:// or socks5h://")
        default:
            throw invalid("has the unsupported scheme \"\(scheme)\"; use http://, https://, socks5:// or socks5h://")
        }

        // The authority ends at the first "/", "?" or "#"; whatever follows is ignored.
        if let end = rest.firstIndex(where: { "/?#".contains($0) }) {
            rest = rest[..<end]
        }
        var credentials: ProxyCredentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            let password: Substring
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                password = userInfo[userInfo.index(after: colon)...]
            } else {
                user = userInfo
                password = ""
            }
            guard let username = String(user).removingPercentEncoding,
                let secret = String(password).removingPercentEncoding
            else {
                throw invalid("has credentials with an invalid percent-encoding")
            }
            credentials = ProxyCredentials(username: username, password: secret)
        }

        let host: String
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw invalid("has an IPv6 address without its closing bracket")
            }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("has text after its IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else {
                throw invalid("has more than one colon after the host; write an IPv6 address in brackets")
            }
            host = String(parts[0])
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty else { throw invalid("has no host") }

        // curl's defaults: 443 for a proxy spoken to over TLS, 1080 for every other scheme.
        var port = usesTLS ? 443 : defaultPort
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isASCII) else {
                // The text is not quoted: in a malformed URL (`user:pa/ss@host`) it may be part
                // of a password.
                throw invalid(
                    "has an invalid port (write a number from 1 to 65535; percent-encode \"/\", \"?\" and \"#\" in credentials)"
                )
            }
            port = number
        }
        return ProxyEndpoint(
            kind: kind,
            host: host,
            port: port,
            credentials: credentials,
            resolvesHostNamesAtProxy: resolvesAtProxy,
            tls: usesTLS ? StreamTLSConfiguration() : nil
        )
    }
}
