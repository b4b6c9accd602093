//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import StreamTaskCore

/// When the writes a task hands its channel are flushed.
@Suite struct StreamTaskFlushTests {
    /// Counts the flushes that pass it on their way to the socket.
    final class FlushCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer
        let flushes = NIOLockedValueBox(0)

        func flush(context: ChannelHandlerContext) {
            flushes.withLockedValue { $0 += 1 }
            context.flush()
        }
    }

    /// Writes that reach the loop while it is busy (as a writer on the pool's do, one hop a
    /// write) go out with one flush once the loop gets to them, not one each.
    @Test func writesThatReachTheLoopTogetherShareOneFlush() async throws {
        try await withCountedClient { client, peer, counter in
            // Hold the loop, and issue three writes from off it: each reaches it in a job of
            // its own, queued behind the hold.
            let gate = DispatchSemaphore(value: 0)
            let written = Recorder<Bool>()
            client.eventLoop.execute { gate.wait() }
            for part in ["one ", "two ", "three"] {
                client.write(Data(part.utf8), timeout: 10) { error in written.append(error == nil) }
            }
            gate.signal()

            let received = try await peer.readText(count: 13)
            #expect(received == "one two three")
            #expect(await eventually { written.values.count == 3 }, "every write completed")
            #expect(written.values == [true, true, true])
            #expect(counter.flushes.withLockedValue { $0 } == 1, "the three writes went out with one flush")
        }
    }

    /// A write made on the loop outside Swift concurrency (a promise's callback, an `execute`
    /// closure) is flushed before the job that made it ends, as SwiftNIO's `writeAndFlush`
    /// is: a server writing to many connections from the loop pays no job per flush, and its
    /// bytes leave at once.
    @Test func aWriteMadeOnTheLoopIsFlushedAtOnce() async throws {
        try await withCountedClient { client, peer, counter in
            let flushesInTheSameJob = try await client.eventLoop.submit {
                client.write(ByteBuffer(string: "now"), timeout: 10, promise: nil)
                return counter.flushes.withLockedValue { $0 }
            }.get()
            #expect(flushesInTheSameJob == 1, "the write was flushed before its job ended")
            let received = try await peer.readText(count: 3)
            #expect(received == "now")
        }
    }

    /// Async code on the task's executor that writes several times before it suspends has its
    /// writes go out together once it does, as writes from the pool that reach a busy loop do.
    @Test func writesFromTheExecutorGoOutTogetherWhenItSuspends() async throws {
        try await withCountedClient { client, peer, counter in
            try await Task(executorPreference: client.executor) {
                for part in ["one ", "two ", "three"] {
                    try await client.write(Data(part.utf8), timeout: 10)
                }
            }.value
            let received = try await peer.readText(count: 13)
            #expect(received == "one two three")
            #expect(counter.flushes.withLockedValue { $0 } == 1, "the three writes went out with one flush")
        }
    }

    /// The flush that code on the executor holds goes out as the job running the code returns
    /// (here, as it suspends to wait for a loop job queued before its write), not in a loop
    /// job queued behind the others.
    @Test func aFlushHeldOnTheExecutorGoesOutAsItsJobReturns() async throws {
        try await withCountedClient { client, peer, counter in
            let flushesSeenByTheJobBefore = try await Task(executorPreference: client.executor) {
                let queuedBefore = client.eventLoop.submit { counter.flushes.withLockedValue { $0 } }
                try await client.write(Data("held".utf8), timeout: 10)
                return try await queuedBefore.get()
            }.value
            #expect(flushesSeenByTheJobBefore == 1, "the write was flushed before the loop's next job ran")
            let received = try await peer.readText(count: 4)
            #expect(received == "held")
        }
    }

    /// A held flush waits for no more than 64 KiB: large writes from async code go out as
    /// they are made, so the socket is not idle while a bulk writer fills its outbound limit.
    @Test func largeWritesFromTheExecutorGoOutAsTheyAreMade() async throws {
        try await withCountedClient { client, peer, counter in
            let chunk = ByteBuffer(repeating: 0x61, count: 64 * 1024)
            try await Task(executorPreference: client.executor) {
                for _ in 0..<3 { try await client.write(chunk, timeout: 10) }
            }.value
            let total = 3 * chunk.readableBytes
            let (received, _) = try await peer.readBuffer(ofMinLength: total, maxLength: total, timeout: 10)
            #expect(received.readableBytes == total)
            #expect(counter.flushes.withLockedValue { $0 } >= 3, "each 64 KiB write was flushed as it was made")
        }
    }

    /// Large writes that reach a busy loop together share one flush too: the limit on a held
    /// flush is for code on the executor, which holds the loop while it writes; what reached
    /// the loop behind a write is queued already, so a bulk writer on the pool that outruns
    /// its loop hands the kernel several writes in one system call. Four writes of 64 KiB:
    /// the channel takes them all before its high-water mark (SwiftNIO's default would stop
    /// it after the second, and the rest would go out with flushes of their own).
    @Test func largeWritesThatReachTheLoopTogetherShareOneFlush() async throws {
        try await withCountedClient { client, peer, counter in
            let gate = DispatchSemaphore(value: 0)
            let written = Recorder<Bool>()
            client.eventLoop.execute { gate.wait() }
            let chunks = [UInt8(0x61), 0x62, 0x63, 0x64].map { Data(repeating: $0, count: 64 * 1024) }
            for chunk in chunks {
                client.write(chunk, timeout: 10) { error in written.append(error == nil) }
            }
            gate.signal()

            let total = chunks.map(\.count).reduce(0, +)
            let (received, _) = try await peer.readBuffer(ofMinLength: total, maxLength: total, timeout: 10)
            #expect(
                Data(received.readableBytesView) == chunks.reduce(Data(), +), "the bytes arrived whole and in order")
            #expect(await eventually { written.values.count == 4 }, "every write completed")
            #expect(written.values == [true, true, true, true])
            #expect(counter.flushes.withLockedValue { $0 } == 1, "the four 64 KiB writes went out with one flush")
        }
    }

    /// Connections a listener accepts stop taking writes at the same mark as those a session
    /// opens.
    @Test func acceptedAndOpenedConnectionsShareTheWriteMark() async throws {
        try await withCountedClient { client, peer, _ in
            for task in [client, peer] {
                let channel = try await task.eventLoop.submit { try #require(task.driver.handler?.context?.channel) }
                    .get()
                let mark = try await channel.getOption(ChannelOptions.writeBufferWaterMark).get()
                let expected = StreamTaskDriver.channelWriteWaterMark
                #expect(mark.low == expected.low && mark.high == expected.high)
                #expect(mark.high > 64 * 1024, "above SwiftNIO's default")
            }
        }
    }

    /// Runs `body` with a client on an event loop of its own (holding one of the shared loops
    /// would stall the connections of every other test on it), its accepted peer, and a
    /// counter of the client's flushes.
    private func withCountedClient(
        _ body: (StreamTask, StreamTask, FlushCounter) async throws -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession(configuration: .default, eventLoopGroup: group).loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")

        let counter = FlushCounter()
        try await client.eventLoop.submit {
            let pipeline = try #require(client.driver.handler?.context?.pipeline.syncOperations)
            try pipeline.addHandler(counter, position: .first)
        }.get()
        var failure: (any Error)?
        do { try await body(client, peer, counter) } catch { failure = error }
        client.cancel()
        peer.cancel()
        await server.stop()
        try await group.shutdownGracefully()
        if let failure { throw failure }
    }
}
