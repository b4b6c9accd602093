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
    /// A client whose close_notify wait is `closeNotifyTimeout`, and its accepted peer, both
    /// upgraded to TLS.
    private func upgradedPair(
        closeNotifyTimeout: Double
    ) async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        let certificates = try await TestCertificates.get()
        var clientTLS = try certificates.clientConfiguration()
        clientTLS.closeNotifyTimeout = closeNotifyTimeout
        var serverTLS = try certificates.serverConfiguration()
        serverTLS.closeNotifyTimeout = 600
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: .init(tls: clientTLS))
        try await client.startTLS(with: peer, serverConfiguration: serverTLS)
        try await client.write("hello\r\n")
        #expect(try await peer.readLine() == "hello\r\n")
        return (server, client, peer)
    }

    private func expectSaysTheCloseNotifyWasUnanswered(_ error: StreamTaskError?, within limit: String) {
        let message = error?.message ?? ""
        #expect(message.contains("the peer did not answer close_notify within \(limit)"), "\(message)")
        #expect(!message.contains("NIOSSL"), "\(message)")
    }

    @Test func aStopThatRunsOutOfItsOwnTimeoutSaysWhyAndClosesAtOnce() async throws {
        // SwiftNIO SSL waits ten minutes for the close_notify here: a close that waited for it
        // would run into the suite's time limit.
        let (server, client, peer) = try await upgradedPair(closeNotifyTimeout: 600)
        let error = await expectStreamError(.timedOut) { try await client.stopTLS(timeout: 0.5) }
        expectSaysTheCloseNotifyWasUnanswered(error, within: "0.5 s (the stop's timeout)")
        let completion = await client.waitUntilCompleted()
        #expect(completion?.message == error?.message, "the task completes with the stop's reason")
        #expect(client.state == .completed)
        peer.cancel()
        await server.stop()
    }

    @Test func aStopWhoseCloseNotifyWaitRunsOutSaysWhyAndCompletesTheTask() async throws {
        let (server, client, peer) = try await upgradedPair(closeNotifyTimeout: 0.5)
        let error = await expectStreamError(.timedOut) { try await client.stopTLS(timeout: 0) }
        expectSaysTheCloseNotifyWasUnanswered(error, within: "0.5 s (the close_notify timeout)")
        let completion = await client.waitUntilCompleted()
        #expect(completion?.message == error?.message, "the task completes with the stop's reason")
        peer.cancel()
        await server.stop()
    }
}
