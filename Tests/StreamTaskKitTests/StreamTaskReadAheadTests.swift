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

/// Reads from Swift's cooperative pool that the buffered bytes satisfy complete there, without
/// the event loop, over real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskReadAheadTests {
    /// Runs `body` while a job holds the client's event loop, and says whether the loop was
    /// still held when `body` returned. The job lets go after 30 s at the latest, so that a
    /// `body` that needs the loop fails the check rather than the suite's time limit; reads
    /// that need no loop take far less, even beside the whole suite on a loaded machine (2 s
    /// was once too short there).
    private func whileTheLoopIsHeld<T>(
        by task: StreamTask, _ body: () async throws -> T
    ) async throws -> (result: T, loopWasHeld: Bool) {
        let release = NIOLockedValueBox(false)
        let holding = NIOLockedValueBox(true)
        let started = NIOLockedValueBox(false)
        task.eventLoop.execute {
            started.withLockedValue { $0 = true }
            let deadline = Date().addingTimeInterval(30)
            while !release.withLockedValue({ $0 }), Date() < deadline { usleep(1_000) }
            holding.withLockedValue { $0 = false }
        }
        // Polled: a future's callback would itself wait for the held loop.
        while !started.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        defer { release.withLockedValue { $0 = true } }
        let result = try await body()
        return (result, holding.withLockedValue { $0 })
    }

    /// Waits until the lending is open over `count` buffered bytes.
    private func lent(_ count: Int, by client: StreamTask) async throws -> Bool {
        try await client.eventuallyOnLoop { driver in
            driver.readsTakeAtOnce && driver.unreadByteCount == count
        }
    }

    @Test func readsThatLentBytesSatisfyCompleteInOrderWhileTheLoopIsBusy() async throws {
        // The client gets a loop of its own: holding one of the shared loops would stall the
        // connections of every other test on it.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession(configuration: .default, eventLoopGroup: group).loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        try await peer.write("abcdefghij")
        #expect(try await lent(10, by: client))
        let (texts, loopWasHeld) = try await whileTheLoopIsHeld(by: client) {
            let first = try await client.readText(count: 3)
            let second = try await client.readData(ofMinLength: 1, maxLength: 3, timeout: 1).0
            let third = try await client.readData(upToAndIncluding: Data("h".utf8), maxLength: 10, timeout: 1)
            return [
                first, second.map { String(decoding: $0, as: UTF8.self) },
                third.map { String(decoding: $0, as: UTF8.self) },
            ]
        }
        #expect(texts == ["abc", "def", "gh"])
        #expect(loopWasHeld, "the reads completed without the loop")
        #expect(try await client.readText(count: 2) == "ij", "what is left goes to the next read")
        client.cancel()
        await server.stop()
        try await group.shutdownGracefully()
    }

    @Test func aReadThatWantsMoreThanIsLentWaitsForTheLoopAndGetsEveryByte() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await peer.write("abc")
        #expect(try await lent(3, by: client))
        async let whole = client.readText(count: 6)
        try await Task.sleep(for: .milliseconds(50))
        try await peer.write("def")
        #expect(try await whole == "abcdef")
        client.cancel()
        await server.stop()
    }

    @Test func aReadAfterCloseReadFailsThoughBytesWereLent() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await peer.write("unread")
        #expect(try await lent(6, by: client))
        client.closeRead()
        await expectStreamError(.readClosed) { try await client.readData(ofMinLength: 1, maxLength: 10, timeout: 5) }
        client.cancel()
        await server.stop()
    }

    @Test func aCancelledTaskReadsNothingFromLentBytes() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await peer.write("unread")
        #expect(try await lent(6, by: client))
        client.cancel()
        await expectStreamError(.cancelled) { try await client.readData(ofMinLength: 1, maxLength: 10, timeout: 5) }
        await server.stop()
    }

    @Test func lentBytesCountTowardsTheInputLimitAndReadingThemAsksForMore() async throws {
        let configuration = StreamSession.Configuration.default
        configuration.inboundBufferLimit = 64 * 1024
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        let total = 4 << 20
        let sending = Task { try await peer.write(Data(repeating: 0x61, count: total), timeout: 30) }
        #expect(try await client.eventuallyOnLoop { $0.readsTakeAtOnce && $0.unreadByteCount >= 64 * 1024 })
        try await Task.sleep(for: .milliseconds(300))
        let unread = try await client.onLoop { $0.unreadByteCount }
        // The limit, plus what one burst of reads may bring past it.
        #expect(unread <= 64 * 1024 + 1024 * 1024, "\(unread) bytes buffered")
        var received = 0
        while received < total {
            let (data, atEOF) = try await client.readData(ofMinLength: 1, maxLength: 16 * 1024, timeout: 10)
            #expect(!atEOF)
            received += data?.count ?? 0
        }
        #expect(received == total)
        try await sending.value
        client.cancel()
        await server.stop()
    }

    /// A reader off the loop takes the bytes that filled the input limit and, before its word
    /// that the input may flow again reaches the loop, another caller's read that the machine
    /// refuses at once (its arguments are invalid) closes the lending. The input must still be
    /// asked for: the lending reopens over an empty buffer, and a read parked there waits for
    /// bytes that only a request for input brings.
    @Test func inputStoppedAtTheLimitIsAskedForAgainWhenARefusedReadClosesTheLending() async throws {
        let configuration = StreamSession.Configuration.default
        configuration.inboundBufferLimit = 4096
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        try await peer.write(Data(repeating: 0x61, count: 4096))
        #expect(
            try await client.eventuallyOnLoop { driver in
                guard case .flowing = driver.machine.inbound else { return false }
                return driver.readsTakeAtOnce && driver.unreadByteCount == 4096
            })
        // The reader's take, with its word to the loop held back for now.
        let taken = client.withShared { $0.machine.readAtOnce(.read(minLength: 1, maxLength: 8192)) }
        #expect(taken?.bytes.readableBytes == 4096)
        #expect(taken?.asksForInput == true)
        await expectStreamError(.invalidArgument) {
            try await client.readData(ofMinLength: 5, maxLength: 1, timeout: 5)
        }
        // The reader's word arrives late.
        client.inputRoomMade()
        try await peer.write("after")
        let (data, atEOF) = try await client.readData(ofMinLength: 5, maxLength: 5, timeout: 10)
        #expect(data.map { String(decoding: $0, as: UTF8.self) } == "after")
        #expect(!atEOF)
        client.cancel()
        await server.stop()
    }
}
