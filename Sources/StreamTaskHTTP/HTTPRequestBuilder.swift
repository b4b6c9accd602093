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
import NIOHTTP1
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLRequest` as what a data task sends: where to connect, whether to use TLS, and the
/// HTTP/1.1 request head and body.
struct HTTPRequestBuilder {
    let url: URL
    let usesTLS: Bool
    let head: HTTPRequestHead
    let body: ByteBuffer?

    /// The host, port and TLS use a request's URL calls for: `http`/`ws` (port 80 unless
    /// given) or `https`/`wss` (443, TLS).
    static func endpoint(of request: URLRequest) throws -> (host: String, port: Int, usesTLS: Bool) {
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            throw StreamTaskError.invalidArgument("the request has no URL with a scheme")
        }
        let usesTLS: Bool
        switch scheme {
        case "http", "ws": usesTLS = false
        case "https", "wss": usesTLS = true
        default:
            throw StreamTaskError.invalidArgument("a data task speaks http, https, ws or wss, not \(scheme)")
        }
        guard var host = url.host, !host.isEmpty else {
            throw StreamTaskError.invalidArgument("the request's URL has no host: \(url.absoluteString)")
        }
        if let inner = host.insideBrackets { host = String(inner) }
        return (host, url.port ?? (usesTLS ? 443 : 80), usesTLS)
    }

    /// Fields of the session's `httpAdditionalHeaders` that the task leaves to its own framing
    /// and routing.
    static let fieldsTheTaskSets: Set<String> = ["host", "connection", "content-length", "transfer-encoding"]

    init(request: URLRequest, host: String, port: Int, additionalHeaders: [AnyHashable: Any]? = nil) throws {
        let endpoint = try Self.endpoint(of: request)
        url = request.url!
        usesTLS = endpoint.usesTLS
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? ""
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }

        var headers = HTTPHeaders()
        let defaultPort = endpoint.usesTLS ? 443 : 80
        let hostName = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: port == defaultPort ? hostName : "\(hostName):\(port)")
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "host" {
            headers.add(name: name, value: value)
        }
        if let value = request.value(forHTTPHeaderField: "Host") {
            headers.replaceOrAdd(name: "Host", value: value)
        }
        // The session's additional fields, sorted so that the head is the same every time;
        // the request's own win.
        let additional = (additionalHeaders ?? [:]).compactMap { key, value -> (String, String)? in
            guard let name = key.base as? String else { return nil }
            return (name, value as? String ?? "\(value)")
        }
        for (name, value) in additional.sorted(by: { $0.0 < $1.0 })
        where !Self.fieldsTheTaskSets.contains(name.lowercased()) && !headers.contains(name: name) {
            headers.add(name: name, value: value)
        }
        let data = request.httpBody ?? Data()
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        // An empty POST, PUT or PATCH says `Content-Length: 0` (RFC 9110, section 8.6): framed
        // by nothing, SwiftNIO's encoder would send it chunked, which an HTTP/1.0 server need
        // not understand (RFC 9112, section 6.1).
        let definesContent = [HTTPMethod.POST, .PUT, .PATCH].contains(method)
        if !data.isEmpty || definesContent, !headers.contains(name: "Content-Length"),
            !headers.contains(name: "Transfer-Encoding")
        {
            headers.add(name: "Content-Length", value: String(data.count))
        }
        body = data.isEmpty ? nil : ByteBuffer(bytes: data)
        head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
    }
}
