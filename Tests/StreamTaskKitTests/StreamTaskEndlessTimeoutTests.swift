//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import Testing

@testable import StreamTaskCore

/// Timeouts too long for a nanosecond count (`.infinity`, as Darwin code passes for "never")
/// wait forever instead of trapping; over real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskEndlessTimeoutTests {
    static let endless: [TimeInterval] = [.infinity, .greatestFiniteMagnitude, 1e12]

    @Test func intervalsPastANanosecondCountBecomeTheLongestAmount() {
        for interval in Self.endless + [.nan] {
            #expect(TimeAmount.seconds(interval) == .nanoseconds(.max), "\(interval)")
        }
        #expect(TimeAmount.seconds(1.5) == .milliseconds(1500))
        #expect(TimeAmount.seconds(8e9) == .nanoseconds(8_000_000_000_000_000_000))
        // Added to a deadline, the longest amount is the distant future, not an overflow.
        #expect(NIODeadline.now() + .seconds(TimeInterval.infinity) == .distantFuture)
    }

    @Test(arguments: endless)
    func aReadAndAWriteWithAnEndlessTimeoutComplete(timeout: TimeInterval) async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        // Issued before the bytes come, so that its timer is armed and waits.
        let reads = Recorder<(Data?, Bool, String?)>()
        client.readData(ofMinLength: 3, maxLength: 10, timeout: timeout) { data, atEOF, error in
            reads.append((data, atEOF, error.map { "\($0)" }))
        }
        try await peer.write(Data("abc".utf8), timeout: timeout)
        #expect(await eventually { reads.values.count == 1 })
        let (data, atEOF, error) = try #require(reads.values.first)
        #expect(data == Data("abc".utf8))
        #expect(!atEOF)
        #expect(error == nil)

        try await client.write(Data("def".utf8), timeout: timeout)
        let (echoed, _) = try await peer.readData(ofMinLength: 3, maxLength: 3, timeout: timeout)
        #expect(echoed == Data("def".utf8))
        client.cancel()
        await server.stop()
    }

    @Test func aSessionWhoseTimeoutsAreEndlessConnectsReadsAndWrites() async throws {
        let configuration = StreamSession.Configuration.default
        configuration.timeoutIntervalForRequest = .infinity
        configuration.timeoutIntervalForResource = .infinity
        configuration.timeoutIntervalForRead = .infinity
        configuration.timeoutIntervalForWrite = .infinity
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        // The session's read and write timeouts apply where the call names none.
        let read = Task { try await client.readData(ofMinLength: 4, maxLength: 4) }
        try await peer.write("ping")
        #expect(try await read.value.0 == Data("ping".utf8))
        try await client.write(Data("pong".utf8))
        #expect(try await peer.readText(count: 4) == "pong")
        client.cancel()
        await server.stop()
    }
}
