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

/// Async writes past the outbound limit, or to a full channel, wait for room rather than for
/// their own bytes; over real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskWriteRoomTests {
    /// Connects a pair and fills the client's channel with a write the peer does not read yet,
    /// so that async writes wait for room; returns the pair and the filling write's size.
    private func pairWithAFullChannel() async throws -> (LoopbackServer, StreamTask, StreamTask, Int) {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")
        let big = Data(repeating: 0x41, count: 32 << 20)
        // Its outcome shows in what the peer reads (one test closes the peer under it).
        client.write(big, timeout: 0) { _ in }
        #expect(
            await eventually { !client.withShared { $0.machine.writeBehindConditions.channelWritable } },
            "the channel filled")
        return (server, client, peer, big.count)
    }

    /// Reads `count` bytes from `peer`, or up to its end of stream.
    private func read(_ count: Int, from peer: StreamTask) async throws -> Data {
        var received = Data()
        while received.count < count {
            let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 1 << 20, timeout: 10)
            received.append(data ?? Data())
            if atEOF { break }
        }
        return received
    }

    /// Starts an async write of `text` with no timeout, and returns once it waits for room.
    private func startWaitingWrite(_ text: String, on client: StreamTask) async -> Task<Void, any Error> {
        let write = Task { try await client.write(Data(text.utf8), timeout: 0) }
        #expect(
            await eventually { client.withShared { $0.machine.writeBehind.waitingCount } == 1 },
            "\(text) waits for room")
        return write
    }

    @Test func aWriteThatTimesOutOrIsCancelledWhileWaitingForRoomIsNeverSent() async throws {
        let (server, client, peer, filled) = try await pairWithAFullChannel()
        let timedOut = await expectStreamError(.timedOut) {
            try await client.write(Data("NEVER".utf8), timeout: 0.3)
        }
        #expect(timedOut?.message.contains("nothing of it was sent") == true, "\(String(describing: timedOut))")
        let cancelled = await startWaitingWrite("CANCELLED", on: client)
        cancelled.cancel()
        await expectStreamError(.cancelled) { try await cancelled.value }
        #expect(client.withShared { $0.machine.writeBehind.waitingCount } == 0)

        let last = await startWaitingWrite("LAST", on: client)
        let received = try await read(filled + 4, from: peer)
        try await last.value
        #expect(received.count == filled + 4)
        #expect(received.suffix(4) == Data("LAST".utf8), "neither withdrawn write was sent")
        #expect(client.state == .running, "withdrawing a write that waited for room keeps the connection")
        client.cancel()
        await server.stop()
    }

    @Test func aWriteWaitingForRoomGoesOutBeforeACloseWriteIssuedAfterIt() async throws {
        let (server, client, peer, filled) = try await pairWithAFullChannel()
        let tail = await startWaitingWrite("TAIL", on: client)
        client.closeWrite()
        let received = try await read(filled + 5, from: peer)
        try await tail.value
        #expect(received.count == filled + 4, "the stream ended after the waiting write's bytes")
        #expect(received.suffix(4) == Data("TAIL".utf8))
        client.cancel()
        await server.stop()
    }

    @Test func aCancelFailsAWriteWaitingForRoomAndSendsNothingOfIt() async throws {
        let (server, client, peer, filled) = try await pairWithAFullChannel()
        let waiting = await startWaitingWrite("NEVER", on: client)
        client.cancel()
        await expectStreamError(.cancelled) { try await waiting.value }
        let received = try await read(filled + 5, from: peer)
        #expect(!received.suffix(5).elementsEqual(Data("NEVER".utf8)), "the write that waited was not sent")
        #expect(received.count <= filled)
        await server.stop()
    }

    /// Code on the task's executor closes the write side while another task's write waits for
    /// room, then writes: the waiting write still goes first, and the later one fails.
    @Test func onTheLoopACloseWriteAndTheWriteAfterItStayBehindAWaitingWrite() async throws {
        let (server, client, peer, filled) = try await pairWithAFullChannel()
        let waiting = await startWaitingWrite("TAIL", on: client)
        let late = await Task(executorPreference: client.executor) { () -> StreamTaskError? in
            client.closeWrite()
            do {
                try await client.write(Data("LATE".utf8), timeout: 10)
                return nil
            } catch {
                return error as? StreamTaskError
            }
        }.value
        #expect(late?.code == .writeClosed, "\(String(describing: late))")
        let received = try await read(filled + 9, from: peer)
        try await waiting.value
        #expect(received.count == filled + 4)
        #expect(received.suffix(4) == Data("TAIL".utf8))
        client.cancel()
        await server.stop()
    }

    @Test func aWriteWaitingForRoomFailsWithTheConnectionWhenItCloses() async throws {
        let (server, client, peer, _) = try await pairWithAFullChannel()
        let stranded = await startWaitingWrite("STRANDED", on: client)
        peer.cancel()
        do {
            try await stranded.value
            Issue.record("a write waiting for room succeeded on a connection the peer closed")
        } catch let error as StreamTaskError {
            #expect([.connectionReset, .connectionClosed].contains(error.code), "\(error)")
        }
        #expect(client.withShared { $0.machine.writeBehind.waitingCount } == 0)
        client.cancel()
        await server.stop()
    }

    /// A small limit makes most writes wait for room, and each is let go in turn: every byte
    /// arrives, in order.
    @Test func manyWritesThatWaitForRoomArriveInOrder() async throws {
        let configuration = StreamSessionConfiguration.default
        configuration.outboundBufferLimit = 4096
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        let count = 2_000
        let reader = Task { try await read(count * 8, from: peer) }
        var sent = Data()
        for index in 0..<count {
            let chunk = Data(String(format: "%07d\n", index).utf8)
            try await client.write(chunk, timeout: 10)
            sent.append(chunk)
        }
        let received = try await reader.value
        #expect(received == sent)
        client.cancel()
        await server.stop()
    }
}
