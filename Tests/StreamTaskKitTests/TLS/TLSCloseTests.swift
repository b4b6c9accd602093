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

/// Closing a TLS connection: no close waits for a close_notify that will not come. Both ends
/// wait up to ten minutes for the peer's close_notify here, so a close that wrongly waits for
/// it runs into the suite's time limit instead of ending after SwiftNIO SSL's usual 5 s.
@Suite(.timeLimit(.minutes(1))) struct TLSCloseTests {
    /// A client and its accepted peer, both upgraded to TLS.
    private func upgradedPair() async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        try await LoopbackServer.upgradedPair(clientCloseNotifyTimeout: 600)
    }

    @Test func cancellingDoesNotWaitForAPeerThatKeepsItsSideOpen() async throws {
        let (server, client, peer) = try await upgradedPair()
        // The peer reads on and never closes: its close_notify does not come.
        client.cancel()
        #expect(await client.waitUntilCompleted()?.code == .cancelled)
        // The peer gets the close_notify and then the end of the stream, in order.
        #expect(try await peer.readToEnd() == "")
        #expect(peer.state == .running, "the peer's own side stays open until it closes it")
        peer.cancel()
        await server.stop()
    }

    @Test func bothEndsCancellingCloseAtOnce() async throws {
        let (server, client, peer) = try await upgradedPair()
        client.cancel()
        peer.cancel()
        #expect(await client.waitUntilCompleted()?.code == .cancelled)
        #expect(await peer.waitUntilCompleted()?.code == .cancelled)
        await server.stop()
    }

    @Test func anOrderlyCloseFromBothEndsCompletesWithoutError() async throws {
        let (server, client, peer) = try await upgradedPair()
        try await client.write("bye\r\n")
        client.closeWrite()
        #expect(try await peer.readToEnd() == "bye\r\n")
        try await peer.write("bye too\r\n")
        peer.closeWrite()
        #expect(try await client.readToEnd() == "bye too\r\n")
        #expect(await client.waitUntilCompleted() == nil)
        #expect(await peer.waitUntilCompleted() == nil)
        await server.stop()
    }
}
