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

/// Code that prefers a task's executor runs on the task's event loop, before and after every
/// operation it awaits, and operations behave there as they do from the cooperative pool.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskExecutorTests {
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func codePreferringTheExecutorStaysOnTheTasksEventLoop() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        // The control: without a preference the test runs on the pool, not on a loop.
        #expect(!client.eventLoop.inEventLoop)

        let echo = Task(executorPreference: peer.executor) { () async throws -> Int in
            var offLoop = 0
            while let line = try await peer.readData(upToAndIncluding: Data("\n".utf8), maxLength: 64, timeout: 10) {
                if !peer.eventLoop.inEventLoop { offLoop += 1 }
                try await peer.write(line, timeout: 10)
                if !peer.eventLoop.inEventLoop { offLoop += 1 }
            }
            return offLoop
        }
        let clientOffLoop = try await withTaskExecutorPreference(client.executor) { () async throws -> Int in
            var offLoop = client.eventLoop.inEventLoop ? 0 : 1
            for round in 0..<100 {
                let line = "round \(round)\n"
                try await client.write(Data(line.utf8), timeout: 10)
                if !client.eventLoop.inEventLoop { offLoop += 1 }
                let reply = try await client.readData(upToAndIncluding: Data("\n".utf8), maxLength: 64, timeout: 10)
                if !client.eventLoop.inEventLoop { offLoop += 1 }
                #expect(reply == Data(line.utf8))
            }
            client.closeWrite()
            return offLoop
        }
        #expect(clientOffLoop == 0)
        #expect(try await echo.value == 0)
        client.cancel()
        await server.stop()
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func aTimedOutReadOnTheExecutorLosesNothing() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await withTaskExecutorPreference(client.executor) {
            try await peer.write("abc")
            let error = await #expect(throws: StreamTaskError.self) {
                _ = try await client.readData(ofMinLength: 4, maxLength: 4, timeout: 0.2)
            }
            #expect(error?.code == .timedOut)
            #expect(client.eventLoop.inEventLoop)
            try await peer.write("d")
            #expect(try await client.readText(count: 4) == "abcd")
        }
        client.cancel()
        await server.stop()
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    @Test func cancellingAWaitOnTheExecutorWithdrawsTheRead() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let waiting = Task(executorPreference: client.executor) {
            try await client.readData(ofMinLength: 1, maxLength: 10, timeout: 0)
        }
        // Let the read reach the queue, then cancel the Swift task waiting for it.
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let error = await #expect(throws: StreamTaskError.self) { _ = try await waiting.value }
        #expect(error?.code == .cancelled)
        try await peer.write("kept")
        #expect(try await client.readText(count: 4) == "kept")
        client.cancel()
        await server.stop()
    }
}
