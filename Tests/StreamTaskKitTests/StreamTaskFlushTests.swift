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
        // The client gets a loop of its own: holding one of the shared loops would stall the
        // connections of every other test on it.
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

        // Hold the loop, and queue three writes behind the hold, each in a job of its own.
        let gate = DispatchSemaphore(value: 0)
        let written = Recorder<Bool>()
        client.eventLoop.execute { gate.wait() }
        for part in ["one ", "two ", "three"] {
            client.eventLoop.execute {
                client.write(Data(part.utf8), timeout: 10) { error in written.append(error == nil) }
            }
        }
        gate.signal()

        var received = Data()
        while received.count < 13 {
            let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
            received.append(data ?? Data())
            if atEOF { break }
        }
        #expect(String(decoding: received, as: UTF8.self) == "one two three")
        #expect(await eventually { written.values.count == 3 }, "every write completed")
        #expect(written.values == [true, true, true])
        #expect(counter.flushes.withLockedValue { $0 } == 1, "the three writes went out with one flush")

        client.cancel()
        peer.cancel()
        await server.stop()
        try await group.shutdownGracefully()
    }
}
