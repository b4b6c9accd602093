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

/// Apple's rule for `closeRead()` and `closeWrite()`: what was queued before them completes
/// first.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskCloseOrderTests {
    @Test func aReadQueuedBeforeCloseReadStillGetsTheBytesThatArrive() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let got = client.recordedRead(count: 5)
        client.closeRead()
        // Both are on the loop, the read first, before any byte is sent.
        #expect(try await client.onLoop { $0.machine.operations.count } == 2)
        try await peer.write("hel")
        try await peer.write("lo, and more")
        #expect(await eventually { got.values == ["hello"] })
        await expectStreamError(.readClosed) { try await client.readData(ofMinLength: 1, maxLength: 1, timeout: 10) }
        client.cancel()
        await server.stop()
    }

    @Test func writesQueuedBeforeCloseWriteAllReachThePeerBeforeItsEndOfStream() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        // Large enough that most of them wait while the channel is full.
        let chunks = (0..<32).map { Data(repeating: UInt8(65 + $0 % 26), count: 256 * 1024) }
        let completed = Recorder<Bool>()
        for chunk in chunks {
            client.write(chunk, timeout: 0) { error in completed.append(error == nil) }
        }
        client.closeWrite()
        let received = try await peer.readToEnd()
        #expect(received.utf8.count == chunks.count * 256 * 1024)
        #expect(Data(received.utf8) == chunks.reduce(Data(), +))
        #expect(await eventually { completed.values == Array(repeating: true, count: chunks.count) })
        client.cancel()
        await server.stop()
    }
}
