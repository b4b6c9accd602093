//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What App Transport Security requires of one connection: the rules for its host, from the
/// exception that matched it or from the defaults, with the refusals that name them.
package struct TransportSecurityRequirements: Sendable, Hashable {
    /// The host the rules are for, in lowercase.
    let host: String
    /// The `NSExceptionDomains` key that matched the host, if one did.
    let exceptionDomain: String?
    /// The oldest TLS version allowed.
    let minimumVersion: StreamTLSConfiguration.Version
    /// Whether only forward-secret suites are offered, and key sizes checked.
    let requiresForwardSecrecy: Bool
    /// Whether `http://`, and server trust loosened by the configuration or a delegate, are allowed.
    package let allowsInsecureHTTPLoads: Bool

    init(host: String, exceptionDomain: String?, exception: StreamTransportSecurity.DomainException) {
        self.host = host
        self.exceptionDomain = exceptionDomain
        self.minimumVersion = exception.minimumTLSVersion
        self.requiresForwardSecrecy = exception.requiresForwardSecrecy
        self.allowsInsecureHTTPLoads = exception.allowsInsecureHTTPLoads
    }

    /// What the rules change in a TLS context: the same for every host they treat alike, so
    /// contexts are shared between hosts (the rest is for the messages).
    struct Handshake: Hashable {
        let minimumVersion: StreamTLSConfiguration.Version
        let requiresForwardSecrecy: Bool

        /// BoringSSL's cipher list for TLS 1.2 and older: ECDHE with AES only, as ATS requires,
        /// or also the RSA key-exchange AES suites when forward secrecy is not required. (TLS
        /// 1.3's suites are all forward-secret.)
        var cipherSuites: String {
            requiresForwardSecrecy
                ? "ECDHE+AESGCM:ECDHE+AES:!aNULL:!eNULL:!MD5"
                : "ECDHE+AESGCM:ECDHE+AES:RSA+AESGCM:RSA+AES:!aNULL:!eNULL:!MD5"
        }
    }

    var handshake: Handshake {
        Handshake(minimumVersion: minimumVersion, requiresForwardSecrecy: requiresForwardSecrecy)
    }

    // MARK: Refusals

    /// A data task's `http://` URL.
    package func insecureHTTPRefusal(url: String) -> StreamTaskError {
        StreamTaskError(
            .transportSecurityRequiresSecureConnection,
            "App Transport Security requires a secure connection: \(url) is plaintext HTTP; use https, or "
                + allowance("NSExceptionAllowsInsecureHTTPLoads", "YES")
        )
    }

    /// The server speaks no TLS version this side allows.
    func versionRefusal(underlying: any Error) -> StreamTaskError {
        StreamTaskError(
            .transportSecurityMinimumVersion,
            "App Transport Security requires \(minimumVersion) or newer, and \(host) offered none of those versions; "
                + allowance("NSExceptionMinimumTLSVersion", "the version the server speaks (TLSv1.0, TLSv1.1…)"),
            underlying: underlying
        )
    }

    /// The server accepted none of the suites offered.
    func cipherSuiteRefusal(underlying: any Error) -> StreamTaskError {
        StreamTaskError(
            .transportSecurityCipherSuite,
            "App Transport Security requires forward secrecy (an ECDHE key exchange with AES), and \(host) accepted none of the suites that have it; "
                + allowance("NSExceptionRequiresForwardSecrecy", "NO"),
            underlying: underlying
        )
    }

    /// The first certificate of `chain` (DER, leaf first) that breaks the hash or key rules.
    func certificateRefusal(chain: [[UInt8]]) -> StreamTaskError? {
        for (position, der) in chain.enumerated() {
            let which = position == 0 ? "the server's certificate" : "certificate \(position + 1) of its chain"
            guard let strength = CertificateStrength(der: der) else {
                return StreamTaskError(
                    .transportSecurityHashAlgorithm,
                    "App Transport Security could not read the algorithms of \(which) for \(host)")
            }
            if !strength.isSelfIssued, !strength.hasStrongSignatureHash {
                return StreamTaskError(
                    .transportSecurityHashAlgorithm,
                    "App Transport Security requires certificates signed with SHA-256 or stronger, and \(which) for \(host) is signed with \(strength.signatureAlgorithm); no domain exception lifts this rule: reissue the certificate, or set NSAllowsArbitraryLoads to YES with no NSExceptionDomains entry for \"\(host)\""
                )
            }
            if requiresForwardSecrecy, !strength.hasStrongKey {
                return StreamTaskError(
                    .transportSecurityKeySize,
                    "App Transport Security requires RSA keys of 2048 bits or more and EC keys of 256 bits or more, and \(which) for \(host) has an \(strength.keyDescription) key; "
                        + allowance("NSExceptionRequiresForwardSecrecy", "NO")
                )
            }
        }
        return nil
    }

    /// Server trust was loosened (by `how`) and default evaluation refused the chain (`refusal`).
    func trustRefusal(loosenedBy how: String, refusal: StreamTaskError) -> StreamTaskError {
        StreamTaskError(
            .transportSecurityTrust,
            "App Transport Security does not let \(how) loosen server trust for \(host), and default evaluation refused it (\(refusal.message)); "
                + allowance("NSExceptionAllowsInsecureHTTPLoads", "YES"),
            underlying: refusal
        )
    }

    /// The exception that would allow what was refused: the key to set in the entry that
    /// matched, or in a new entry for the host.
    func allowance(_ key: String, _ value: String) -> String {
        let entry =
            exceptionDomain.map { "in its NSExceptionDomains entry \"\($0)\"" }
            ?? "in an NSExceptionDomains entry for \"\(host)\""
        var text = "to allow it, set \(key) to \(value) \(entry)"
        if exceptionDomain == nil, TransportSecurityHost(host).address != nil {
            text += " (or set NSAllowsLocalNetworking to YES)"
        }
        return text
    }
}
