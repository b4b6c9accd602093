//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The server's certificate chain as a task's TLS handshake presents it, with the library's
/// own verdict on it: what a delegate gets to decide on where Darwin code gets a `SecTrust`.
///
/// A delegate may accept a server the default evaluation refuses (a self-signed test server, a
/// certificate it pins itself), refuse one it accepts, or leave it to the default. On Darwin,
/// `SecTrustEvaluateWithError(trust, &error)` evaluates; here ``evaluate()`` throws the
/// default evaluation's error.
public struct StreamServerTrust: Sendable {
    /// The host the task connects to, as the certificate must name it.
    public let host: String
    /// The port the task connects to.
    public let port: Int
    /// The chain the server presented, its own certificate first.
    public let certificateChain: [TLSCertificate]
    /// Why the library's evaluation (the session's ``StreamTLSConfiguration``: trust roots,
    /// host name, dates, pins) refuses the chain; `nil` when it accepts it.
    public let defaultEvaluationError: StreamTaskError?

    package init(host: String, port: Int, certificateChain: [TLSCertificate], defaultEvaluationError: StreamTaskError?)
    {
        self.host = host
        self.port = port
        self.certificateChain = certificateChain
        self.defaultEvaluationError = defaultEvaluationError
    }

    /// Evaluates the chain as the session's TLS configuration says: returns when it is
    /// trusted, throws the reason when it is not (as `SecTrustEvaluateWithError` on Darwin).
    public func evaluate() throws {
        if let defaultEvaluationError { throw defaultEvaluationError }
    }
}

extension StreamSession {
    /// What a delegate decides about an authentication challenge, with Apple's cases and raw
    /// values (`URLSession.AuthChallengeDisposition`).
    public enum AuthChallengeDisposition: Int, Sendable {
        /// Use the credential given: for a server trust challenge, trust the server.
        case useCredential = 0
        /// Do what the session would do without a delegate: the library's evaluation.
        case performDefaultHandling = 1
        /// Refuse: the task fails with `URLError.cancelled`, as on Darwin.
        case cancelAuthenticationChallenge = 2
        /// Reject this protection space: for a server trust challenge, which has no other,
        /// the same as ``performDefaultHandling``.
        case rejectProtectionSpace = 3
    }
}
