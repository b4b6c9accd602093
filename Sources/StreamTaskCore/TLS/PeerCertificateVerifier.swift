//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks the certificate chain a peer presented, and says precisely why it is refused.
///
/// BoringSSL's own verification reports every failure as "certificate verify failed". This
/// verifier runs in SwiftNIO SSL's custom verification callback instead, with swift-certificates'
/// RFC 5280 and server-identity policies, so that an expired certificate, an untrusted chain, a
/// host name mismatch and a pin mismatch are told apart. It also keeps the presented chain for the
/// task's metrics.
struct PeerCertificateVerifier: Sendable {
    let configuration: StreamTLSConfiguration
    /// The name the peer must prove (a client's view of the server); `nil` to skip the check.
    let expectedHostname: String?

    /// `nil` when the chain is accepted, the reason otherwise.
    func verify(_ presented: [TLSCertificate]) async -> StreamTaskError? {
        guard let leaf = presented.first else {
            return StreamTaskError(.tlsUntrustedCertificate, "the peer presented no certificate")
        }
        // ATS does not let the configuration loosen default evaluation without an exception: it
        // checks the whole chain and the name instead, which covers the looser check configured.
        var checkedInFull = false
        if let rules = configuration.transportSecurity {
            if let refusal = rules.certificateRefusal(chain: presented.map(\.derBytes)) {
                return refusal
            }
            if configuration.certificateVerification != .full, !rules.allowsInsecureHTTPLoads {
                if let refusal = await verifyChain(presented, checksHostname: true) {
                    let how = "the configuration's certificate verification (.\(configuration.certificateVerification))"
                    return rules.trustRefusal(loosenedBy: how, refusal: refusal)
                }
                checkedInFull = true
            }
        }
        if configuration.certificateVerification != .none, !checkedInFull {
            if let failure = await verifyChain(
                presented, checksHostname: configuration.certificateVerification == .full)
            {
                return failure
            }
        }
        if !configuration.pins.isEmpty, !configuration.pins.contains(where: { $0.matches(leaf) }) {
            return StreamTaskError(
                .tlsPinMismatch,
                "the peer's certificate (SHA-256 \(leaf.sha256Fingerprint.hexString(separator: ":"))) matches none of the \(configuration.pins.count) pinned"
            )
        }
        return nil
    }

    private func verifyChain(_ presented: [TLSCertificate], checksHostname: Bool) async -> StreamTaskError? {
        let parsed: [Certificate]
        do {
            parsed = try presented.map { try Certificate(derEncoded: $0.derBytes) }
        } catch {
            if let small = presented.lazy.compactMap({ CertificateStrength(der: $0.derBytes) }).first(where: {
                $0.keyKind == "RSA" && ($0.keyBits ?? 0) < 2048
            }) {
                return StreamTaskError(
                    .tlsUntrustedCertificate,
                    "the peer's chain has an \(small.keyDescription) key, which chain verification does not accept (RSA keys need 2048 bits or more); only a pin with certificate verification off can accept it"
                )
            }
            return StreamTaskError(.tlsUntrustedCertificate, "the peer's certificate could not be parsed: \(error)")
        }
        let leaf = parsed[0]
        let intermediates = CertificateStore(parsed.dropFirst())
        var roots = CertificateStore()
        var rootProblems: [String] = []
        if configuration.trustsSystemRoots {
            (roots, rootProblems) = SystemTrustRoots.roots(
                environment: configuration.systemTrustEnvironment ?? SystemTrustRoots.processEnvironment)
        }
        roots.append(
            contentsOf: configuration.additionalTrustRoots.compactMap { try? Certificate(derEncoded: $0.derBytes) })
        let validationTime = Date()
        let hostname = checksHostname ? expectedHostname : nil

        var complete = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            if let hostname {
                ServerIdentityPolicy(
                    serverHostname: Self.isIPAddress(hostname) ? nil : hostname,
                    serverIP: Self.isIPAddress(hostname) ? hostname : nil)
            }
        }
        if case .validCertificate = await complete.validate(leaf: leaf, intermediates: intermediates) {
            return nil
        }
        // Tell the reasons apart: the chain without the name check, then the dates.
        if let hostname {
            var chainOnly = Verifier(rootCertificates: roots) { RFC5280Policy() }
            if case .validCertificate = await chainOnly.validate(leaf: leaf, intermediates: intermediates) {
                return StreamTaskError(
                    .tlsHostnameMismatch,
                    "the peer's certificate is not valid for \"\(hostname)\" (it is for \(Self.names(of: leaf)))"
                )
            }
        }
        if let stale = parsed.first(where: { validationTime < $0.notValidBefore || validationTime > $0.notValidAfter })
        {
            let when =
                validationTime > stale.notValidAfter
                ? "expired on \(stale.notValidAfter)" : "is not valid before \(stale.notValidBefore)"
            return StreamTaskError(.tlsCertificateExpired, "the certificate for \(stale.subject) \(when)")
        }
        return StreamTaskError(
            .tlsUntrustedCertificate,
            "the peer's certificate chain (\(leaf.subject), issued by \(leaf.issuer)) does not lead to a trusted root"
                + rootProblems.map { "; \($0)" }.joined()
        )
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func names(of certificate: Certificate) -> String {
        var names: [String] = []
        if let alternatives = try? certificate.extensions.subjectAlternativeNames {
            for name in alternatives {
                switch name {
                case .dnsName(let dns): names.append(dns)
                case .ipAddress(let bytes): names.append(ipString(Array(bytes.bytes)))
                default: break
                }
            }
        }
        return names.isEmpty ? "\(certificate.subject)" : names.joined(separator: ", ")
    }

    private static func ipString(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return bytes.hexString()
    }
}
