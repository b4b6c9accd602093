//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How a task speaks TLS: what it trusts, what it presents, which versions and protocols.
///
/// Client tasks use their session's ``StreamSessionConfiguration/tls``; a task accepted by a
/// listener is given a server configuration when it upgrades (or the listener's, when the
/// listener is TLS from the first byte). The defaults are secure: TLS 1.2 or newer, the system's
/// trust store, and the peer's name checked against the host the task connected to.
public struct StreamTLSConfiguration: Sendable, Hashable {
    /// A TLS protocol version.
    public enum Version: Int, Sendable, Comparable, CustomStringConvertible {
        case tls1_0 = 10
        case tls1_1 = 11
        case tls1_2 = 12
        case tls1_3 = 13

        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .tls1_0: "TLS 1.0"
            case .tls1_1: "TLS 1.1"
            case .tls1_2: "TLS 1.2"
            case .tls1_3: "TLS 1.3"
            }
        }
    }

    /// How the peer's certificate chain is checked.
    public enum CertificateVerification: Sendable, Hashable {
        /// The chain must lead to a trusted root, every certificate in it must be within its
        /// validity period, and (for a client) the leaf must name the host the task connected to.
        case full
        /// As ``full``, without the host name check.
        case noHostnameVerification
        /// No chain check at all. With ``StreamTLSConfiguration/pins`` set, only the pins decide;
        /// without pins, any peer is accepted (tests only).
        case none
    }

    /// The oldest version accepted; TLS 1.2 by default.
    public var minimumVersion: Version
    /// The newest version offered; `nil` for the newest the library supports (TLS 1.3).
    public var maximumVersion: Version?
    /// How the peer's chain is checked.
    public var certificateVerification: CertificateVerification
    /// Whether the system's trust store is trusted (on top of ``additionalTrustRoots``).
    ///
    /// On Linux that is the distribution's CA bundle, or the PEM file the `SSL_CERT_FILE`
    /// environment variable names instead, plus the certificates in the directories
    /// `SSL_CERT_DIR` lists (separated by `:`), as OpenSSL programs and curl read them.
    public var trustsSystemRoots: Bool
    /// More roots to trust, such as a private CA.
    public var additionalTrustRoots: [TLSCertificate]
    /// When not empty, the peer's leaf certificate must match one of these.
    public var pins: [TLSPin]
    /// The certificate chain this side presents, leaf first: the server's certificate, or a
    /// client certificate.
    public var certificateChain: [TLSCertificate]
    /// The private key for the first certificate of ``certificateChain``.
    public var privateKey: TLSPrivateKey?
    /// For a server: whether clients must present a certificate that verifies against
    /// ``additionalTrustRoots`` (and the system roots, if trusted).
    public var requiresClientCertificate: Bool
    /// Application protocols to offer (client) or accept (server) with ALPN, in preference order.
    public var applicationProtocols: [String]
    /// How long an orderly close or ``StreamTask/stopTLS(timeout:)`` waits for the peer's
    /// close_notify before giving up on it (SwiftNIO SSL's shutdown timeout). Tests lengthen it,
    /// so that a close that wrongly waits hangs instead of ending after a few seconds.
    var closeNotifyTimeout: Double = 5
    /// Where ``trustsSystemRoots`` reads `SSL_CERT_FILE` and `SSL_CERT_DIR`: `nil` for the
    /// process's environment. Tests set it, as the real environment is the whole process's.
    var systemTrustEnvironment: [String: String]? = nil
    /// What App Transport Security requires of this connection, when it applies: set by the
    /// task for each client handshake from its session's ``StreamSessionConfiguration/transportSecurity``.
    package var transportSecurity: TransportSecurityRequirements? = nil

    /// A client configuration with secure defaults.
    public init(
        minimumVersion: Version = .tls1_2,
        maximumVersion: Version? = nil,
        certificateVerification: CertificateVerification = .full,
        trustsSystemRoots: Bool = true,
        additionalTrustRoots: [TLSCertificate] = [],
        pins: [TLSPin] = [],
        certificateChain: [TLSCertificate] = [],
        privateKey: TLSPrivateKey? = nil,
        requiresClientCertificate: Bool = false,
        applicationProtocols: [String] = []
    ) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.certificateVerification = certificateVerification
        self.trustsSystemRoots = trustsSystemRoots
        self.additionalTrustRoots = additionalTrustRoots
        self.pins = pins
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.requiresClientCertificate = requiresClientCertificate
        self.applicationProtocols = applicationProtocols
    }

    /// A server configuration presenting `certificateChain` with `privateKey`.
    public static func server(
        certificateChain: [TLSCertificate],
        privateKey: TLSPrivateKey,
        requiresClientCertificate: Bool = false,
        clientCertificateRoots: [TLSCertificate] = []
    ) -> StreamTLSConfiguration {
        StreamTLSConfiguration(
            certificateVerification: .noHostnameVerification,
            trustsSystemRoots: clientCertificateRoots.isEmpty,
            additionalTrustRoots: clientCertificateRoots,
            certificateChain: certificateChain,
            privateKey: privateKey,
            requiresClientCertificate: requiresClientCertificate
        )
    }

    /// A server configuration from PEM files: the certificate chain (leaf first) and its key.
    public static func server(certificatePEMFile: String, privateKeyPEMFile: String) throws -> StreamTLSConfiguration {
        .server(
            certificateChain: try TLSCertificate.chain(pemFile: certificatePEMFile),
            privateKey: try TLSPrivateKey(pemFile: privateKeyPEMFile)
        )
    }
}

/// Which side of a handshake a task takes, with the configuration for it.
package enum TLSRole: Sendable {
    /// A client; with `peerName`, the name the server's certificate must carry (and the one
    /// sent in SNI) instead of the host the task connected to.
    case client(StreamTLSConfiguration, peerName: String? = nil)
    case server(StreamTLSConfiguration)

    var configuration: StreamTLSConfiguration {
        switch self {
        case .client(let configuration, _), .server(let configuration): configuration
        }
    }

    /// The name a client checks the server's certificate against, if not the task's host.
    var peerName: String? {
        if case .client(_, let peerName) = self { return peerName }
        return nil
    }

    var isServer: Bool {
        if case .server = self { return true }
        return false
    }
}
