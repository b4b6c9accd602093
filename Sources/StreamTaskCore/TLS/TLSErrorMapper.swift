//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOSSL

/// Turns SwiftNIO SSL's handshake errors into ``StreamTaskError``s with TLS codes.
package enum TLSErrorMapper {
    /// Whether `error` comes from the TLS layer (SwiftNIO SSL or BoringSSL), and so is to be
    /// described by ``map(_:verification:configuration:)``.
    static func isTLSError(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError
    }

    /// Whether `error` is SwiftNIO SSL's report that the connection ended without close_notify.
    package static func isUncleanShutdown(_ error: any Error) -> Bool {
        if case .uncleanShutdown? = error as? NIOSSLError { true } else { false }
    }

    /// Whether `error` is SwiftNIO SSL's report that the peer's close_notify did not come
    /// within its shutdown timeout.
    static func isCloseTimeout(_ error: any Error) -> Bool {
        error is NIOSSLCloseTimedOutError
    }

    /// This side sent close_notify and the peer did not answer it before `limit` (`seconds`)
    /// ran out: said in words, not in SwiftNIO SSL's type names.
    static func closeNotifyUnanswered(within seconds: Double, limit: String) -> StreamTaskError {
        StreamTaskError(
            .timedOut,
            "the peer did not answer close_notify within \(seconds) s (\(limit)), so TLS could not be stopped; the connection was closed"
        )
    }

    /// - Parameters:
    ///   - error: What the TLS handler reported.
    ///   - verification: Why this side's verifier refused the peer, if it did: the precise reason
    ///     behind BoringSSL's generic "certificate verify failed".
    ///   - configuration: The configuration in force, to name the version bounds.
    static func map(
        _ error: any Error,
        verification: StreamTaskError?,
        configuration: StreamTLSConfiguration
    ) -> StreamTaskError {
        if let verification { return verification }
        if let error = error as? StreamTaskError { return error }
        let text = "\(error)"
        // BoringSSL says WRONG_VERSION_NUMBER when a record header is not TLS at all: the peer
        // speaks something else (plaintext, garbage), which is not a version disagreement.
        if text.contains("WRONG_VERSION_NUMBER") {
            return StreamTaskError(
                .tlsHandshakeFailed,
                "the peer does not speak TLS: what it sent is not a TLS record (\(text))",
                underlying: error
            )
        }
        let versionMarkers = ["UNSUPPORTED_PROTOCOL", "PROTOCOL_VERSION", "NO_SUPPORTED_VERSIONS"]
        let noSharedVersion = versionMarkers.contains(where: text.contains)
        if let rules = configuration.transportSecurity {
            // The floor App Transport Security raised, or the suites it left out, refused the server.
            if noSharedVersion, rules.minimumVersion > configuration.minimumVersion {
                return rules.versionRefusal(underlying: error)
            }
            let noSharedSuite = ["NO_SHARED_CIPHER", "ALERT_HANDSHAKE_FAILURE", "ALERT_INSUFFICIENT_SECURITY"]
            if noSharedSuite.contains(where: text.contains), rules.requiresForwardSecrecy {
                return rules.cipherSuiteRefusal(underlying: error)
            }
        }
        if noSharedVersion {
            return StreamTaskError(
                .tlsVersionTooOld,
                "the peer and this side share no TLS version (this side accepts \(versionBounds(configuration)))",
                underlying: error
            )
        }
        if text.contains("EOF during handshake") || isUncleanShutdown(error) {
            return StreamTaskError(
                .tlsHandshakeFailed,
                "the peer closed the connection during the TLS handshake (some servers do so when they accept none of the versions offered: \(versionBounds(configuration)))",
                underlying: error
            )
        }
        let peerRefusal = [
            "ALERT_UNKNOWN_CA", "ALERT_BAD_CERTIFICATE", "ALERT_CERTIFICATE", "CERTIFICATE_REQUIRED",
            "ALERT_HANDSHAKE_FAILURE",
        ]
        if peerRefusal.contains(where: text.contains) {
            return StreamTaskError(
                .tlsHandshakeFailed,
                "the peer refused the TLS handshake (\(text)); it may not accept this side's certificate or parameters, or the TLS versions this side accepts (\(versionBounds(configuration))): some peers, GnuTLS among them, say so rather than protocol_version",
                underlying: error
            )
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return StreamTaskError(
                .tlsUntrustedCertificate, "the peer's certificate was refused (\(text))", underlying: error)
        }
        return StreamTaskError(.tlsHandshakeFailed, "the TLS handshake failed: \(text)", underlying: error)
    }

    private static func versionBounds(_ configuration: StreamTLSConfiguration) -> String {
        configuration.maximumVersion.map { "\(configuration.minimumVersion) to \($0)" }
            ?? "\(configuration.minimumVersion) or newer"
    }
}
