import NIOSSL

extension StreamTLSConfiguration {
    /// SwiftNIO SSL's context for this configuration. Trust is decided by
    /// ``PeerCertificateVerifier`` in the custom verification callback, so SwiftNIO SSL gets no
    /// roots of its own; it only has to ask for the peer's certificate when one must be checked.
    func makeContext(isServer: Bool) throws -> NIOSSLContext {
        let chain = try certificateChain.map { NIOSSLCertificateSource.certificate(try $0.nioCertificate()) }
        let key = try privateKey.map { NIOSSLPrivateKeySource.privateKey(try $0.nioKey()) }
        var tls: TLSConfiguration
        if isServer {
            guard let key, !chain.isEmpty else {
                throw StreamTaskError(.tlsConfigurationInvalid, "a TLS server needs a certificate chain and its private key")
            }
            tls = .makeServerConfiguration(certificateChain: chain, privateKey: key)
            tls.certificateVerification = requiresClientCertificate ? .noHostnameVerification : .none
        } else {
            tls = .makeClientConfiguration()
            tls.certificateChain = chain
            tls.privateKey = key
            // The peer is checked at all unless both chain verification and pins are off.
            let checksPeer = certificateVerification != .none || !pins.isEmpty
            tls.certificateVerification = checksPeer ? .noHostnameVerification : .none
        }
        tls.trustRoots = .certificates([])
        tls.minimumTLSVersion = minimumVersion.nio
        if let maximumVersion {
            tls.maximumTLSVersion = maximumVersion.nio
        }
        tls.applicationProtocols = applicationProtocols
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw StreamTaskError(.tlsConfigurationInvalid, "the TLS configuration cannot be used: \(error)", underlying: error)
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
