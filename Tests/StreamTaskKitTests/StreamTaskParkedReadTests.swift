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

/// Reads from Swift's cooperative pool that find nothing buffered are queued in the machine
/// where they are called, under the task's lock, with no trip to the loop, and the loop
/// completes them as their bytes come, over real sockets on 127.0.0.1: every rule a read
/// issued on the loop keeps holds for them too.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskParkedReadTests {
    /// A connected pair whose client would let a read take buffered bytes at once.
    private func lendingPair() async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        let pair = try await LoopbackServer.connectedPair()
        #expect(try await pair.client.eventuallyOnLoop { $0.readsTakeAtOnce })
        return pair
    }

    /// Waits until `count` reads wait in `client`'s machine.
    private func readParked(_ client: StreamTask, count: Int = 1) async throws -> Bool {
        for _ in 0..<5_000 {
            let waiting = client.withShared { shared in
                shared.machine.operations.filter { $0.operation.claimsInput }.count
            }
            if waiting == count { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    /// Reads what one read with at least one byte and at most `max` gets, as text.
    private func read(_ client: StreamTask, max: Int = 100, timeout: TimeInterval = 10) async throws -> String {
        let (data, _) = try await client.readData(ofMinLength: 1, maxLength: max, timeout: timeout)
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    @Test func aReadThatFindsNothingWaitsInTheMachineAndTheLoopCompletesIt() async throws {
        let (server, client, peer) = try await lendingPair()
        async let got = read(client)
        #expect(try await readParked(client))
        #expect(!client.driver.readsTakeAtOnce, "a read waits: later reads queue behind it")
        try await peer.write("hello")
        #expect(try await got == "hello")
        client.cancel()
        await server.stop()
    }

    /// A read waiting in the queue completes at the end of a burst of channel reads, with
    /// what the whole burst brought up to its maximum, as if it had come in one read: its
    /// caller wakes once a burst, not once a read of the socket. The rest is buffered, and the
    /// next read takes it at once. The burst is fired into the client's pipeline on its loop,
    /// as a socket's readable event fires it, with its end in a later loop job.
    @Test func aWaitingReadCompletesAtTheEndOfABurstWithWhatItBrought() async throws {
        let (server, client, _) = try await lendingPair()
        async let got = read(client, max: 8)
        #expect(try await readParked(client))
        let pipeline = try await client.eventLoop.submit {
            guard let pipeline = client.driver.handler?.context?.pipeline else {
                throw StreamTaskError(.connectionClosed, "the client's channel is gone")
            }
            for part in ["one,", "two,", "three"] {
                pipeline.syncOperations.fireChannelRead(NIOAny(ByteBuffer(string: part)))
            }
            return pipeline
        }.get()
        #expect(try await readParked(client), "the burst has not ended: the read still waits")
        try await client.eventLoop.submit { pipeline.syncOperations.fireChannelReadComplete() }.get()
        #expect(try await got == "one,two,")
        #expect(try await client.eventuallyOnLoop { $0.readsTakeAtOnce })
        #expect(try await read(client, timeout: 0.5) == "three")
        client.cancel()
        await server.stop()
    }

    @Test func readsIssuedAfterAParkedReadCompleteAfterIt() async throws {
        let (server, client, peer) = try await lendingPair()
        async let first = read(client, max: 3)
        #expect(try await readParked(client))
        async let second = client.readText(count: 3)
        #expect(try await readParked(client, count: 2), "the read after it queues behind it")
        try await peer.write("abcdef")
        #expect(try await first == "abc")
        #expect(try await second == "def")
        client.cancel()
        await server.stop()
    }

    @Test func aParkedReadTimesOutAndLosesNothing() async throws {
        let (server, client, peer) = try await lendingPair()
        // A first read with a long timeout arms the timer far ahead; the next one, with a short
        // timeout, must not wait for it (the suite's time limit is far shorter).
        async let longWait = read(client, timeout: 600)
        #expect(try await readParked(client))
        try await peer.write("one")
        #expect(try await longWait == "one")
        #expect(try await client.eventuallyOnLoop { $0.readsTakeAtOnce })
        await expectStreamError(.timedOut) { _ = try await read(client, timeout: 0.2) }
        #expect(try await readParked(client, count: 0))
        try await peer.write("late")
        #expect(try await read(client) == "late", "the bytes after the timeout go to the next read")
        client.cancel()
        await server.stop()
    }

    @Test func aParkedReadWhoseSwiftTaskIsCancelledFailsAndLosesNothing() async throws {
        let (server, client, peer) = try await lendingPair()
        let waiting = Task { try await read(client) }
        #expect(try await readParked(client))
        waiting.cancel()
        await expectStreamError(.cancelled) { _ = try await waiting.value }
        #expect(try await readParked(client, count: 0))
        try await peer.write("kept")
        #expect(try await read(client) == "kept")
        #expect(client.state == .running, "a cancelled read leaves the task alone")
        client.cancel()
        await server.stop()
    }

    @Test func aParkedReadGetsTheEndOfTheStream() async throws {
        let (server, client, peer) = try await lendingPair()
        async let got = client.readData(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(try await readParked(client))
        peer.closeWrite()
        let (data, atEOF) = try await got
        #expect(data == Data())
        #expect(atEOF)
        client.cancel()
        await server.stop()
    }

    @Test func aParkedDelimitedReadTheFirstBytesFallShortOfGetsTheWholeLine() async throws {
        let (server, client, peer) = try await lendingPair()
        async let line = client.readLine()
        #expect(try await readParked(client))
        try await peer.write("PRIV")
        #expect(try await client.eventuallyOnLoop { $0.unreadByteCount == 4 }, "the bytes fall short: the read waits")
        try await peer.write("MSG #a :hi\r\nNEXT\r\n")
        #expect(try await line == "PRIVMSG #a :hi\r\n")
        #expect(try await client.readLine() == "NEXT\r\n")
        client.cancel()
        await server.stop()
    }

    @Test func cancellingTheTaskFailsAParkedRead() async throws {
        let (server, client, _) = try await lendingPair()
        let got = Task { try await read(client) }
        #expect(try await readParked(client))
        client.cancel()
        await expectStreamError(.cancelled) { _ = try await got.value }
        await server.stop()
    }

    @Test func aParkedReadWaitsWhileTheTaskIsSuspended() async throws {
        let (server, client, peer) = try await lendingPair()
        let done = NIOLockedValueBox(false)
        let got = Task {
            defer { done.withLockedValue { $0 = true } }
            return try await read(client)
        }
        #expect(try await readParked(client))
        client.suspend()
        try await peer.write("held")
        // The bytes reach the client's buffer, and the read must still wait.
        #expect(try await client.eventuallyOnLoop { $0.unreadByteCount == 4 })
        let completedWhileSuspended = done.withLockedValue { $0 }
        #expect(!completedWhileSuspended)
        client.resume()
        #expect(try await got.value == "held")
        client.cancel()
        await server.stop()
    }

    @Test func aBufferReadTakesLentBytesParksAndGetsTheEndAsADataReadDoes() async throws {
        let (server, client, peer) = try await lendingPair()
        try await peer.write("abcdef")
        #expect(try await client.eventuallyOnLoop { $0.unreadByteCount == 6 })
        let first = try await client.readBuffer(ofMinLength: 2, maxLength: 4, timeout: 10)
        #expect(String(buffer: first.buffer) == "abcd")
        #expect(!first.atEOF)
        let second = try await client.readBuffer(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(String(buffer: second.buffer) == "ef")
        async let third = client.readBuffer(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(try await readParked(client))
        try await peer.write("g")
        #expect(String(buffer: try await third.buffer) == "g")
        peer.closeWrite()
        let end = try await client.readBuffer(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(end.buffer.readableBytes == 0)
        #expect(end.atEOF)
        client.cancel()
        await server.stop()
    }

    @Test func aCompletionHandlerReadParksToo() async throws {
        let (server, client, peer) = try await lendingPair()
        let got = client.recordedRead(count: 2)
        #expect(try await readParked(client))
        try await peer.write("ok")
        var values: [String] = []
        for _ in 0..<1000 where values.isEmpty {
            values = got.values
            if values.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(values == ["ok"])
        client.cancel()
        await server.stop()
    }
}

/// Many megabytes read from the pool while a writer on the pool keeps the connection full: reads
/// wait in the queue and take buffered bytes at once in every mix, and every byte arrives in
/// order.
@Suite(.timeLimit(.minutes(2))) struct StreamTaskParkedReadBulkTests {
    @Test(arguments: [64 * 1024, 256 * 1024])
    func aBulkTransferReadFromThePoolGetsEveryByteInOrder(inboundLimit: Int) async throws {
        let configuration = StreamSession.Configuration.default
        configuration.inboundBufferLimit = inboundLimit
        // Both ends on a loop of their own: 64 MiB through the shared loops held up every
        // other test's connections on them (Benchmarks/FINDINGS.md, session 22).
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let (server, client, peer) = try await LoopbackServer.connectedPair(
            configuration: configuration, eventLoopGroup: group)
        let chunk = 64 * 1024
        let chunks = 1024
        let writing = Task {
            var buffer = ByteBuffer()
            for index in 0..<chunks {
                buffer.clear()
                buffer.writeRepeatingByte(UInt8(truncatingIfNeeded: index), count: chunk)
                try await peer.write(buffer, timeout: 30)
            }
        }
        var received = 0
        var outOfOrder = 0
        while received < chunk * chunks {
            let data: Data?
            let atEOF: Bool
            do {
                (data, atEOF) = try await client.readData(ofMinLength: 1, maxLength: 65536, timeout: 10)
            } catch {
                let state = try await client.onLoop { d in
                    "at once \(d.readsTakeAtOnce) inbound \(d.machine.inbound) buffered \(d.machine.bufferedByteCount) pending \(d.machine.operations.count)"
                }
                Issue.record("stalled after \(received): \(state)")
                throw error
            }
            #expect(!atEOF)
            for byte in data ?? Data() {
                if byte != UInt8(truncatingIfNeeded: received / chunk) { outOfOrder += 1 }
                received += 1
            }
        }
        #expect(received == chunk * chunks)
        #expect(outOfOrder == 0)
        try await writing.value
        client.cancel()
        await server.stop()
    }
}
