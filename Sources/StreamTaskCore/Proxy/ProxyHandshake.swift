//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// One proxy handshake as a plain value: the bytes to send, and what the proxy's replies mean.
/// ``ProxyHandshakeHandler`` carries it out on a channel; tests drive it directly.
protocol ProxyHandshake {
    /// The first bytes to send, once connected to the proxy.
    mutating func start() throws(ProxyHandshakeError) -> ByteBuffer

    /// Consumes what it can of the proxy's reply from `buffer`. After ``ProxyHandshakeStep/established``
    /// the bytes left in `buffer` are the target's: they belong to the stream.
    mutating func receive(_ buffer: inout ByteBuffer) throws(ProxyHandshakeError) -> ProxyHandshakeStep
}

enum ProxyHandshakeStep: Equatable {
    /// The reply is incomplete: read more.
    case needMoreData
    /// Send these bytes to the proxy, then call `receive` again.
    case send(ByteBuffer)
    /// The tunnel is open.
    case established
}

/// Why a proxy handshake failed, before it is told in a ``StreamTaskError`` that names the
/// proxy and the target.
enum ProxyHandshakeError: Error, Equatable {
    /// The proxy wants credentials: none were given (`credentialsSent == false`) or it refused
    /// them. `status` is an HTTP proxy's status line ("407 Proxy Authentication Required").
    case authenticationRequired(credentialsSent: Bool, status: String? = nil)
    /// The proxy accepts none of the authentication methods offered.
    case noAcceptableAuthenticationMethod
    /// An HTTP proxy answered `CONNECT` with a status other than 2xx or 407.
    case httpStatus(Int, reason: String)
    /// A SOCKS5 proxy answered the connect request with a reply code other than success.
    case socksReply(UInt8)
    /// The reply does not follow the protocol.
    case malformedReply(String)
    /// The reply's head grew past the limit without ending.
    case replyTooLarge(limit: Int)
    /// The proxy closed the connection before the tunnel was open.
    case closedByProxy
    /// The handshake took longer than this many seconds.
    case timedOut(seconds: Double)
    /// What we would have to send cannot be encoded (a name or credential too long, a line break…).
    case invalidRequest(String)
}
