//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import StreamTaskCore

/// Operations submitted from other threads while the task's event loop is busy reach the
/// loop in one job (`SubmissionInbox`): the writes among them go to the channel in order and
/// with one flush. Over real sockets on 127.0.0.1, with the loop held by a job of the test's.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskWriteBatchTests {
    /// Counts the flushes that reach the socket (it sits next to the pipeline's head).
    final class FlushCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer
        let flushes = NIOLockedValueBox(0)

        func flush(context: ChannelHandlerContext) {
            flushes.withLockedValue { $0 += 1 }
            context.flush()
        }
    }

    /// A connected client whose socket's flushes `FlushCounter` counts from here on.
    static func countedPair() async throws -> (LoopbackServer, StreamTask, StreamTask, FlushCounter) {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.write("up,")  // returns once the connection is up and the write queued
        let counter = FlushCounter()
        try await client.eventLoop.submit {
            guard let pipeline = client.driver.handler?.context?.pipeline else {
                throw StreamTaskError(.connectionClosed, "the client's channel is gone")
            }
            try pipeline.syncOperations.addHandler(counter, position: .first)
        }.get()
        #expect(try await peer.readText(count: 3) == "up,")
        return (server, client, peer, counter)
    }

    /// Runs `submit` while the client's event loop is held by another job, then lets it go;
    /// that job runs `thenOnTheLoop` as it ends, before the loop's next job.
    static func whileTheLoopIsBusy(
        _ client: StreamTask,
        thenOnTheLoop: @escaping @Sendable () -> Void = {},
        _ submit: () -> Void
    ) async throws {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        client.eventLoop.execute {
            held.signal()
            release.wait()
            thenOnTheLoop()
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                held.wait()
                continuation.resume()
            }
        }
        submit()
        release.signal()
    }

    @Test func writesSubmittedWhileTheLoopIsBusyGoOutInOrderWithOneFlush() async throws {
        let (server, client, peer, counter) = try await Self.countedPair()
        let completed = Recorder<Int>()
        try await Self.whileTheLoopIsBusy(client) {
            for number in 0..<50 {
                client.write(Data("\(number),".utf8), timeout: 10) { error in
                    #expect(error == nil)
                    completed.append(number)
                }
            }
        }
        let expected = (0..<50).map { "\($0)," }.joined()
        #expect(try await peer.readText(count: expected.utf8.count) == expected)
        #expect(await eventually { completed.values.count == 50 })
        #expect(completed.values == Array(0..<50))
        #expect(counter.flushes.withLockedValue { $0 } == 1, "one flush for the whole batch")
        client.cancel()
        await server.stop()
    }

    /// A half-close, and then a cancel, in the same batch as writes: every byte goes first.
    @Test func aCloseWriteOrCancelInTheBatchComesAfterItsWrites() async throws {
        for cancels in [false, true] {
            let (server, client, peer, _) = try await Self.countedPair()
            try await Self.whileTheLoopIsBusy(client) {
                for number in 0..<20 {
                    client.write(Data("\(number),".utf8), timeout: 10) { _ in }
                }
                client.closeWrite()
                if cancels { client.cancel() }
            }
            #expect(try await peer.readToEnd() == (0..<20).map { "\($0)," }.joined(), "cancels: \(cancels)")
            client.cancel()
            await server.stop()
        }
    }

    /// A write from code on the loop follows the writes waiting in the inbox, though it runs
    /// before the inbox's job does.
    @Test func aWriteFromTheLoopFollowsTheInbox() async throws {
        let (server, client, peer, _) = try await Self.countedPair()
        let onTheLoop: @Sendable () -> Void = {
            client.write(ByteBuffer(string: "c,"), timeout: 10, promise: nil)
        }
        try await Self.whileTheLoopIsBusy(client, thenOnTheLoop: onTheLoop) {
            client.write(ByteBuffer(string: "a,"), timeout: 10, promise: nil)
            client.write(ByteBuffer(string: "b,"), timeout: 10, promise: nil)
        }
        #expect(try await peer.readText(count: 6) == "a,b,c,")
        client.cancel()
        await server.stop()
    }
}
