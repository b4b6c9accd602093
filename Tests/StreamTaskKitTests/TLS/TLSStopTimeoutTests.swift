//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// Stopping TLS when the peer never answers close_notify: its accepted task reads on and never
/// stops TLS itself. The stop fails saying so in words, and the task completes at the timeout
/// that ran out, not when SwiftNIO SSL's own wait for close_notify would end.
@Suite(.timeLimit(.minutes(1))) struct TLSStopTimeoutTests {
    /// Which timeout runs out first: the stop's own (while SwiftNIO SSL would wait ten minutes
    /// for the close_notify, so a close that waited for it would run into the time limit), or
    /// the close_notify wait.
    @Test(
        arguments: [
            (600, 0.5, "0.5 s (the stop's timeout)"),
            (0.5, 0, "0.5 s (the close_notify timeout)"),
        ] as [(Double, Double, String)])
    func aStopThePeerNeverAnswersSaysWhyAndCompletesTheTask(
        closeNotifyTimeout: Double,
        stopTimeout: Double,
        limit: String
    ) async throws {
        let (server, client, peer) = try await LoopbackServer.upgradedPair(clientCloseNotifyTimeout: closeNotifyTimeout)
        let error = await expectStreamError(.timedOut) { try await client.stopTLS(timeout: stopTimeout) }
        let message = error?.message ?? ""
        #expect(message.contains("the peer did not answer close_notify within \(limit)"), "\(message)")
        #expect(!message.contains("NIOSSL"), "\(message)")
        let completion = await client.waitUntilCompleted()
        #expect(completion?.message == error?.message, "the task completes with the stop's reason")
        #expect(client.state == .completed)
        peer.cancel()
        await server.stop()
    }
}
