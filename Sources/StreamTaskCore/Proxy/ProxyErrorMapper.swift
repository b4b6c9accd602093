//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Turns what went wrong on the way through a proxy into ``StreamTaskError``s. Each names the
/// proxy in its message and the target as its host and port.
enum ProxyErrorMapper {
    /// A failure while resolving or connecting to the proxy itself.
    static func mapConnect(
        _ error: any Error, proxy: ProxyEndpoint, host: String, port: Int, timeout: TimeInterval
    )
        -> StreamTaskError
    {
        if let error = error as? StreamTaskError, error.host == host, error.port == port {
            return error  // already about the target (its local resolution for socks5://)
        }
        let cause = ChannelErrorMapper.mapConnect(error, host: proxy.host, port: proxy.port, timeout: timeout)
        return StreamTaskError(
            .proxyConnectFailed,
            "could not connect to the \(proxy): \(cause.message)",
            host: host,
            port: port,
            errno: cause.errno,
            underlying: cause
        )
    }

    /// The session's connect timeout ran out before the tunnel was open.
    static func connectTimeout(proxy: ProxyEndpoint, host: String, port: Int, timeout: TimeInterval) -> StreamTaskError
    {
        StreamTaskError(
            .connectTimeout,
            "could not connect through the \(proxy) within \(timeout) s (name resolution, connection and proxy handshake)",
            host: host,
            port: port
        )
    }

    /// A failure during the handshake with the proxy.
    static func mapHandshake(_ error: any Error, proxy: ProxyEndpoint, host: String, port: Int) -> StreamTaskError {
        func fail(_ code: StreamTaskError.Code, _ message: String) -> StreamTaskError {
            StreamTaskError(code, message, host: host, port: port, underlying: error)
        }
        guard let error = error as? ProxyHandshakeError else {
            if let error = error as? StreamTaskError { return error.at(host: host, port: port) }
            let cause = ChannelErrorMapper.map(error)
            return StreamTaskError(
                .proxyConnectFailed,
                "the connection to the \(proxy) failed during the handshake: \(cause.message)",
                host: host,
                port: port,
                errno: cause.errno,
                underlying: error
            )
        }
        switch error {
        case .authenticationRequired(credentialsSent: false, let status):
            let shown = status.map { " (\($0))" } ?? ""
            return fail(
                .proxyAuthenticationRequired, "the \(proxy) requires authentication\(shown); no credentials were given")
        case .authenticationRequired(credentialsSent: true, let status):
            let user = proxy.credentials.map { " for user \"\($0.username)\"" } ?? ""
            let shown = status.map { " (\($0))" } ?? ""
            return fail(.proxyAuthenticationRequired, "the \(proxy) rejected the credentials\(user)\(shown)")
        case .noAcceptableAuthenticationMethod:
            return fail(
                .proxyAuthenticationRequired,
                "the \(proxy) accepts none of the authentication methods offered (none, username and password)"
            )
        case .httpStatus(let status, let reason):
            let shown = reason.isEmpty ? "\(status)" : "\(status) \(reason)"
            return fail(.proxyRefused, "the \(proxy) refused to open a tunnel: \(shown)")
        case .socksReply(let reply):
            let code: StreamTaskError.Code
            switch reply {
            case 0x03, 0x04: code = .unreachable
            case 0x05: code = .connectionRefused
            case 0x06: code = .connectTimeout
            default: code = .proxyRefused
            }
            let text = SOCKS5Handshake.replyDescription(reply)
            return fail(code, "the \(proxy) could not open a tunnel: \(text) (SOCKS5 reply \(reply))")
        case .malformedReply(let what):
            return fail(.proxyProtocolError, "the \(proxy) sent an invalid reply: \(what)")
        case .replyTooLarge(let limit):
            return fail(.proxyProtocolError, "the \(proxy) sent a reply head longer than \(limit) bytes")
        case .closedByProxy:
            return fail(.proxyRefused, "the \(proxy) closed the connection before the tunnel was open")
        case .timedOut(let seconds):
            return fail(.proxyHandshakeTimeout, "the \(proxy) did not complete the handshake within \(seconds) s")
        case .invalidRequest(let what):
            return fail(.invalidArgument, "cannot ask the \(proxy) for a tunnel: \(what)")
        }
    }
}
