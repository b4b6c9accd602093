//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskError.Code {
    /// The proxy could not be reached: its name did not resolve, it refused the connection, or
    /// the connection to it failed during the handshake.
    public static let proxyConnectFailed = Self(base: .proxyConnectFailed)
    /// The proxy wants credentials: none were given, it rejected them, or it accepts none of
    /// the authentication methods offered (HTTP status 407, or the SOCKS5 equivalents).
    public static let proxyAuthenticationRequired = Self(base: .proxyAuthenticationRequired)
    /// The proxy would not open the tunnel: an HTTP status other than 2xx, a SOCKS5 failure
    /// reply, or the connection closed before the tunnel was open. The message says which.
    public static let proxyRefused = Self(base: .proxyRefused)
    /// The proxy's reply did not follow its protocol, or its HTTP reply head was too long.
    public static let proxyProtocolError = Self(base: .proxyProtocolError)
    /// The proxy did not complete the handshake within
    /// ``ProxyConfiguration/handshakeTimeout``.
    public static let proxyHandshakeTimeout = Self(base: .proxyHandshakeTimeout)
}
