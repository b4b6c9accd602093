//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import StreamTaskKit

extension ChatServerConfiguration {
    /// The session a link to `peer` is opened with: ``linkSession`` (or the shared one) for a
    /// plaintext link; for a TLS link, a copy of it whose TLS checks the peer as its
    /// ``ChatLinkPeer/security`` says. Without a ``linkSession`` of the caller's, App Transport
    /// Security allows local networking, as the chat client does, so that a pin can stand in
    /// for a CA on a private network.
    func session(for peer: ChatLinkPeer) throws -> StreamSession {
        let base = linkSession ?? StreamSession.shared
        let tls: StreamTLSConfiguration
        switch peer.security {
        case .plaintext:
            return base
        case .verified:
            tls = StreamTLSConfiguration()
        case .pinned(let digest):
            tls = StreamTLSConfiguration(certificateVerification: .none, pins: [.certificateSHA256(digest)])
        case .certificateAuthority(let file):
            tls = StreamTLSConfiguration(
                trustsSystemRoots: false, additionalTrustRoots: try TLSCertificate.chain(pemFile: file))
        }
        let settings = base.configuration
        settings.tls = tls
        if linkSession == nil { settings.transportSecurity = StreamTransportSecurity(allowsLocalNetworking: true) }
        return StreamSession(configuration: settings)
    }
}
