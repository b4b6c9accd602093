//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers
import NIOSSL

/// Contexts already built, by configuration and role. A context parses the certificates and
/// key and sets up BoringSSL's SSL_CTX: work for once per configuration, not for every accepted
/// connection of a TLS listener or every STARTTLS. Configurations are values holding their
/// certificate and key bytes, so an equal key means an interchangeable context.
private let contextCache = NIOLockedValueBox<[TLSContextKey: NIOSSLContext]>([:])

/// More distinct configurations than a process plausibly uses at once; past it, start over.
private let contextCacheLimit = 32

struct TLSContextKey: Hashable {
    /// The configuration without its transport-security requirements, which name the host.
    let configuration: StreamTLSConfiguration
    let isServer: Bool
    /// What those requirements change in the context: the same for every host they allow alike.
    let transportSecurity: TransportSecurityRequirements.Handshake?

    init(_ configuration: StreamTLSConfiguration, isServer: Bool) {
        var shared = configuration
        shared.transportSecurity = nil
        self.configuration = shared
        self.isServer = isServer
        self.transportSecurity = configuration.transportSecurity?.handshake
    }
}

extension StreamTLSConfiguration {
    /// SwiftNIO SSL's context for this configuration in one role, built once and then shared.
    func context(isServer: Bool) throws -> NIOSSLContext {
        let key = TLSContextKey(self, isServer: isServer)
        if let cached = contextCache.withLockedValue({ $0[key] }) {
            return cached
        }
        let context = try makeContext(isServer: isServer)
        contextCache.withLockedValue { cache in
            if cache.count >= contextCacheLimit { cache.removeAll() }
            cache[key] = context
        }
        return context
    }

    /// A client context of its own, whose `answer` is asked (by BoringSSL, through SwiftNIO
    /// SSL's context callback) when the server requests a client certificate. Not shared: the
    /// callback cannot tell which connection asks, so each handshake that may ask a delegate
    /// gets one.
    func clientContext(answeringCertificateRequests answer: @escaping NIOSSLContextCallback) throws -> NIOSSLContext {
        try makeContext(isServer: false, certificateRequests: answer)
    }

    /// Builds SwiftNIO SSL's context for this configuration. Trust is decided by
    /// ``PeerCertificateVerifier`` in the custom verification callback, so SwiftNIO SSL gets no
    /// roots of its own; it only has to ask for the peer's certificate when one must be checked.
    private func makeContext(
        isServer: Bool, certificateRequests: NIOSSLContextCallback? = nil
    ) throws -> NIOSSLContext {
        let chain = try certificateChain.map { NIOSSLCertificateSource.certificate(try $0.nioCertificate()) }
        let key = try privateKey.map { NIOSSLPrivateKeySource.privateKey(try $0.nioKey()) }
        var tls: TLSConfiguration
        if isServer {
            guard let key, !chain.isEmpty else {
                throw StreamTaskError(
                    .tlsConfigurationInvalid, "a TLS server needs a certificate chain and its private key")
            }
            tls = .makeServerConfiguration(certificateChain: chain, privateKey: key)
            tls.certificateVerification = requiresClientCertificate ? .noHostnameVerification : .none
        } else {
            tls = .makeClientConfiguration()
            tls.certificateChain = chain
            tls.privateKey = key
            // The peer is checked at all unless both chain verification and pins are off, and
            // App Transport Security does not apply.
            let checksPeer = certificateVerification != .none || !pins.isEmpty || transportSecurity != nil
            tls.certificateVerification = checksPeer ? .noHostnameVerification : .none
        }
        tls.sslContextCallback = certificateRequests
        tls.trustRoots = .certificates([])
        tls.minimumTLSVersion = minimumVersion.nio
        if let rules = transportSecurity?.handshake, !isServer {
            tls.minimumTLSVersion = max(minimumVersion, rules.minimumVersion).nio
            tls.cipherSuites = rules.cipherSuites
        }
        if let maximumVersion {
            tls.maximumTLSVersion = maximumVersion.nio
        }
        tls.applicationProtocols = applicationProtocols
        tls.shutdownTimeout = .seconds(closeNotifyTimeout)
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw StreamTaskError(
                .tlsConfigurationInvalid, "the TLS configuration cannot be used: \(error)", underlying: error)
        }
    }
}

extension StreamTLSConfiguration.Version {
    var nio: TLSVersion {
        switch self {
        case .tls1_0: .tlsv1
        case .tls1_1: .tlsv11
        case .tls1_2: .tlsv12
        case .tls1_3: .tlsv13
        }
    }

    init(_ version: TLSVersion) {
        switch version {
        case .tlsv1: self = .tls1_0
        case .tlsv11: self = .tls1_1
        case .tlsv12: self = .tls1_2
        case .tlsv13: self = .tls1_3
        }
    }
}
