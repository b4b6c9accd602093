//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTask {
    /// What to present to a server that asked for a client certificate, once the delegate has
    /// decided (``tlsDelegate(reportedAs:)``): an identity, `nil` for the configuration's own
    /// (if any), or the reason to end the handshake.
    func clientCertificateAnswer(
        reportedAs reported: StreamSessionTask? = nil
    ) async -> Result<StreamClientIdentity?, StreamTaskError> {
        guard let (delegate, task) = tlsDelegate(reportedAs: reported) else { return .success(nil) }
        let request = StreamClientCertificateRequest(host: host, port: port)
        let session = session
        let (disposition, identity) = await askDelegate { answer in
            delegate.urlSession(session, task: task, didReceiveClientCertificateRequest: request) {
                answer(($0, $1))
            }
        }
        switch disposition {
        case .useCredential:
            return .success(identity)
        case .cancelAuthenticationChallenge:
            return .failure(
                StreamTaskError(
                    .cancelled, "the delegate cancelled the client certificate challenge", host: host, port: port))
        case .performDefaultHandling, .rejectProtectionSpace:
            return .success(nil)
        }
    }
}
