//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server's request for a client certificate as Apple's delegates get it: a challenge whose
/// protection space's authentication method is `NSURLAuthenticationMethodClientCertificate`.
enum ClientCertificateChallenge {
    static func make(_ request: StreamClientCertificateRequest) -> URLAuthenticationChallenge {
        URLAuthenticationChallenge(
            protectionSpace: URLProtectionSpace(
                host: request.host, port: request.port, protocol: "https", realm: nil,
                authenticationMethod: streamClientCertificateAuthenticationMethod),
            proposedCredential: nil,
            previousFailureCount: 0,
            failureResponse: nil,
            error: nil,
            sender: IgnoredChallengeSender()
        )
    }

    /// The identity a credential given for the challenge carries (`nil` for any other credential).
    static func identity(in credential: URLCredential?) -> StreamClientIdentity? {
        (credential as? StreamIdentityCredential)?.identity
    }
}

/// `NSURLAuthenticationMethodClientCertificate`, which Foundation on Linux does not define.
public let streamClientCertificateAuthenticationMethod = "NSURLAuthenticationMethodClientCertificate"

/// A credential that answers a client certificate challenge with an identity: what Darwin code
/// makes with `URLCredential(identity:certificates:persistence:)` from a `SecIdentity`, which
/// Linux does not have. Answer the challenge with `.useCredential` and this credential.
public final class StreamIdentityCredential: URLCredential, @unchecked Sendable {
    // @unchecked: immutable after init, as Foundation's credentials.
    /// The certificate chain and key presented to the server.
    public let identity: StreamClientIdentity

    public init(identity: StreamClientIdentity, persistence: URLCredential.Persistence = .forSession) {
        self.identity = identity
        super.init(user: "", password: "", persistence: persistence)
    }

    public required init?(coder: NSCoder) {
        nil
    }
}
