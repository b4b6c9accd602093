//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers

extension StreamTask {
    /// The verdict on the server's chain once the task's delegate (or the session's) has
    /// decided: `nil` to trust it, the reason to refuse it. Without a delegate, or while the
    /// task carries a data task (whose own delegate is not asked yet), the default verdict.
    func serverTrustVerdict(chain: [TLSCertificate], defaultFailure: StreamTaskError?) async -> StreamTaskError? {
        guard !withShared({ $0.delegateMuted }),
            let delegate = delegate ?? session.delegate
        else { return defaultFailure }
        let trust = StreamServerTrust(
            host: host, port: port, certificateChain: chain, defaultEvaluationError: defaultFailure)
        let session = session
        let disposition = await withCheckedContinuation { continuation in
            // A delegate that calls the handler twice must not resume the wait twice.
            let answered = NIOLockedValueBox(false)
            session.callbackQueue.async {
                delegate.urlSession(session, task: self, didReceiveServerTrust: trust) { disposition in
                    let first = answered.withLockedValue { answered -> Bool in
                        defer { answered = true }
                        return !answered
                    }
                    if first { continuation.resume(returning: disposition) }
                }
            }
        }
        switch disposition {
        case .useCredential:
            return nil
        case .cancelAuthenticationChallenge:
            return StreamTaskError(
                .cancelled, "the delegate cancelled the server trust challenge", host: host, port: port,
                underlying: defaultFailure)
        case .performDefaultHandling, .rejectProtectionSpace:
            return defaultFailure
        }
    }
}
