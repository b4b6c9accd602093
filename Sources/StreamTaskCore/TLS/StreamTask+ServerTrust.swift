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
    /// decided: `nil` to trust it, the reason to refuse it; without a delegate, the default
    /// verdict. For the TLS of a data task this task carries, `reported` is that data task: its
    /// delegate is asked, about it.
    func serverTrustVerdict(
        chain: [TLSCertificate], defaultFailure: StreamTaskError?, reportedAs reported: StreamSessionTask? = nil
    ) async -> StreamTaskError? {
        guard let (delegate, task) = tlsDelegate(reportedAs: reported) else { return defaultFailure }
        let trust = StreamServerTrust(
            host: host, port: port, certificateChain: chain, defaultEvaluationError: defaultFailure)
        let session = session
        let disposition = await askDelegate { answer in
            delegate.urlSession(session, task: task, didReceiveServerTrust: trust, completionHandler: answer)
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

extension StreamTask {
    /// The delegate a TLS handshake on this task asks, with the task it names: for a data task
    /// riding on this one (`reported`), that task's delegate or the session's; otherwise this
    /// task's or the session's, unless its callbacks are muted (it carries a data task, or its
    /// streams were captured). `nil` when there is none to ask.
    package func tlsDelegate(
        reportedAs reported: StreamSessionTask?
    ) -> (delegate: any StreamSessionCoreDelegate, task: StreamSessionTask)? {
        if let reported {
            let delegate: (any StreamSessionCoreDelegate)? = reported.delegate ?? session.delegate
            return delegate.map { ($0, reported) }
        }
        guard !withShared({ $0.delegateMuted }), let delegate = delegate ?? session.delegate else { return nil }
        return (delegate, self)
    }
}

extension StreamTask {
    /// Runs `ask` on the session's delegate queue and waits for the answer it passes to its
    /// handler: the first one only, since a delegate that calls the handler twice must not
    /// resume the wait twice.
    func askDelegate<Answer: Sendable>(
        _ ask: @escaping @Sendable (_ answer: @escaping @Sendable (Answer) -> Void) -> Void
    ) async -> Answer {
        let queue = session.callbackQueue
        return await firstAnswer { answer in
            queue.async { ask(answer) }
        }
    }
}
