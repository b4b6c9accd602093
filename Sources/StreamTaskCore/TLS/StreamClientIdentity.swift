//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A certificate chain and its private key: what a client presents when a server asks it to
/// prove who it is (what Darwin code keeps in a `SecIdentity`).
public struct StreamClientIdentity: Sendable, Hashable {
    /// The client's certificate first, then any intermediates the server needs to reach a root
    /// it trusts.
    public var certificateChain: [TLSCertificate]
    /// The private key of the first certificate.
    public var privateKey: TLSPrivateKey

    public init(certificateChain: [TLSCertificate], privateKey: TLSPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

/// A server asked the task's TLS handshake for a client certificate: where the request came
/// from. (BoringSSL does not hand the server's list of acceptable authorities to the library,
/// so, unlike Apple's protection space, it has no distinguished names.)
public struct StreamClientCertificateRequest: Sendable, Hashable {
    /// The host the task connected to, as it was given.
    public var host: String
    /// The port the task connected to.
    public var port: Int
}
