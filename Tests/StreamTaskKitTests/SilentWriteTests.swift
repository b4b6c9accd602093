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

/// Writes nobody hears of (`write(_:timeout:promise:)` with no promise and no timeout) go to
/// the channel without asking for their outcome one by one, over a real socket: every byte
/// still arrives in order, what waits for them still waits, and the byte count still counts
/// them.
@Suite(.timeLimit(.minutes(1))) struct SilentWriteTests {
    private static func lines(_ range: ClosedRange<Int>) -> [String] { range.map { "line \($0)\n" } }

    /// A connected pair whose client lets 128 bytes of async writes return before they are
    /// written: two of the 64-byte writes below.
    private static func pairWithRoomForTwoWrites() async throws
        -> (server: LoopbackServer, client: StreamTask, peer: StreamTask)
    {
        let configuration = StreamSession.Configuration.default.copy()
        configuration.outboundBufferLimit = 128
        return try await LoopbackServer.connectedPair(configuration: configuration)
    }

    @Test func closeWriteWaitsForSilentWritesIssuedOnTheLoop() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let lines = Self.lines(1...100)
        try await client.eventLoop.submit {
            for line in lines { client.write(ByteBuffer(string: line), timeout: 0, promise: nil) }
            client.closeWrite()
        }.get()
        #expect(try await peer.readToEnd() == lines.joined())
        let total = Int64(lines.joined().utf8.count)
        #expect(await eventually { client.countOfBytesSent == total })
        client.cancel()
        await server.stop()
    }

    @Test func aWriteSomeoneWaitsForStandsForTheSilentOnesBeforeIt() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let lines = Self.lines(1...50)
        // From off the loop: queued there, and handed to the channel by the loop's passes.
        for line in lines { client.write(ByteBuffer(string: line), timeout: 0, promise: nil) }
        let last = "the end\n"
        let total = Int64((lines.joined() + last).utf8.count)
        let sentWhenDone = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int64, any Error>) in
            client.write(Data(last.utf8), timeout: 10) { error in
                if let error { return continuation.resume(throwing: error) }
                continuation.resume(returning: client.countOfBytesSent)
            }
        }
        #expect(sentWhenDone == total)
        #expect(try await peer.readText(count: Int(total)) == lines.joined() + last)
        #expect(try await client.onLoop { $0.machine.writesInFlight.isEmpty })
        client.cancel()
        await server.stop()
    }

    @Test func aRequestIsCountedAsSentOnceItsReplyIsRead() async throws {
        // Async writes that returned early, and writes nobody hears of, are not confirmed one
        // by one; yet, as on Darwin, a reply read after a request finds the request counted.
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.write(Data("abc".utf8), timeout: 0)
        #expect(try await peer.readText(count: 3) == "abc")
        try await peer.write("de")
        #expect(try await client.readText(count: 2) == "de")
        #expect(client.countOfBytesSent == 3)
        try await client.eventLoop.submit { client.write(ByteBuffer(string: "fgh"), timeout: 0, promise: nil) }.get()
        #expect(try await peer.readText(count: 3) == "fgh")
        try await peer.write("i")
        #expect(try await client.readText(count: 1) == "i")
        #expect(client.countOfBytesSent == 6)
        client.cancel()
        await server.stop()
    }

    @Test func aRequestIsCountedAsSentWhenThePeerEndsTheStream() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.write(Data("request".utf8), timeout: 0)
        #expect(try await peer.readText(count: 7) == "request")
        peer.closeWrite()
        #expect(try await client.readToEnd() == "", "the peer's end, and nothing before it")
        #expect(client.countOfBytesSent == 7)
        client.cancel()
        await server.stop()
    }

    @Test func writesThatReturnedAreConfirmedWhenAWriterWaitsForRoom() async throws {
        // Room for two writes: the third waits until the first two are confirmed, which they
        // would not be on their own (none of them is awaited).
        let (server, client, peer) = try await Self.pairWithRoomForTwoWrites()
        let line = String(repeating: "x", count: 63) + "\n"
        for _ in 0..<200 { try await client.write(ByteBuffer(string: line), timeout: 0) }
        #expect(try await peer.readText(count: 200 * 64) == String(repeating: line, count: 200))
        client.cancel()
        await server.stop()
    }

    @Test func writersWaitingForRoomTogetherAllGetIt() async throws {
        // Several writers park at once; as room comes, some are let go while others still
        // wait, and the writes of those let go must be confirmed for the others' room.
        let (server, client, peer) = try await Self.pairWithRoomForTwoWrites()
        let writers = 4
        let perWriter = 50
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let line = String(repeating: Character(String(writer)), count: 63) + "\n"
                    for _ in 0..<perWriter { try await client.write(ByteBuffer(string: line), timeout: 0) }
                }
            }
            try await group.waitForAll()
        }
        let received = try await peer.readText(count: writers * perWriter * 64)
        for writer in 0..<writers {
            #expect(received.filter { $0 == Character(String(writer)) }.count == perWriter * 63)
        }
        client.cancel()
        await server.stop()
    }

    @Test func closeWriteWaitsForSilentWritesInsideTLS() async throws {
        // The empty write that confirms them goes through SwiftNIO SSL, which passes a
        // zero-length write on in order.
        let (server, client, peer) = try await LoopbackServer.upgradedPair(clientCloseNotifyTimeout: 10)
        let lines = Self.lines(1...40)
        try await client.eventLoop.submit {
            for line in lines { client.write(ByteBuffer(string: line), timeout: 0, promise: nil) }
            client.closeWrite()
        }.get()
        #expect(try await peer.readText(count: lines.joined().utf8.count) == lines.joined())
        let total = Int64(lines.joined().utf8.count)
        #expect(await eventually { client.countOfBytesSent >= total })
        client.cancel()
        await server.stop()
    }

    @Test func anUpgradeWaitsForSilentWritesBeforeIt() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.eventLoop.submit {
            client.write(ByteBuffer(string: "STARTTLS\r\n"), timeout: 0, promise: nil)
        }.get()
        // The upgrade starts only once the plaintext before it is written: the peer reads it
        // in plaintext, then the client's hello.
        let upgrade = Task { try await client.startTLS(timeout: 10) }
        #expect(try await peer.readLine() == "STARTTLS\r\n")
        let (hello, _) = try await peer.readData(ofMinLength: 1, maxLength: 1, timeout: 10)
        #expect(hello == Data([0x16]))  // a TLS handshake record
        client.cancel()
        _ = await upgrade.result
        await server.stop()
    }
}
