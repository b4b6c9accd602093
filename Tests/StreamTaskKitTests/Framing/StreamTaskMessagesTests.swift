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
import StreamTaskKit
import Testing

/// Framed messages between two tasks over 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskMessagesTests {
    let framer = LengthPrefixedFramer(prefix: FramingInteger(width: 4), maximumMessageLength: 1024)

    @Test func messagesSentFramedArriveWholeAndInOrder() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let sent = ["one", "", "three", String(repeating: "x", count: 1024)]
        for text in sent { try await client.send(ByteBuffer(string: text), framedBy: framer, timeout: 10) }
        client.closeWrite()
        var received: [String] = []
        for try await message in peer.messages(framedBy: framer, timeout: 10) {
            received.append(String(buffer: message))
        }
        #expect(received == sent)
        client.cancel()
        await server.stop()
    }

    @Test func aFrameWrittenAByteAtATimeArrivesAsOneMessage() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        var frame = ByteBuffer()
        try framer.frame(ByteBuffer(string: "trickled"), into: &frame)
        async let message = peer.readMessage(framedBy: framer, timeout: 10)
        for byte in frame.readableBytesView {
            try await client.write(Data([byte]), timeout: 10)
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(try await message.map { String(buffer: $0) } == "trickled")
        client.cancel()
        await server.stop()
    }

    /// A read whose message has not all come when its time runs out loses nothing: the next
    /// read gets the whole message.
    @Test func aTimedOutReadLosesNothing() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        var frame = ByteBuffer()
        try framer.frame(ByteBuffer(string: "patience"), into: &frame)
        let half = frame.readSlice(length: 6)!
        try await client.write(half, timeout: 10)
        await expectStreamError(.timedOut) { _ = try await peer.readMessage(framedBy: framer, timeout: 0.2) }
        try await client.write(frame, timeout: 10)
        #expect(try await peer.readMessage(framedBy: framer, timeout: 10).map { String(buffer: $0) } == "patience")
        client.cancel()
        await server.stop()
    }

    /// A length prefix of 2^63 fails the read at once, with nothing of the message read, and
    /// the task goes on: its bytes stay buffered for whoever reads next.
    @Test func aHostileLengthPrefixFailsTheReadAndTheTaskGoesOn() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let wide = LengthPrefixedFramer(prefix: FramingInteger(width: 8), maximumMessageLength: 1024)
        var hostile = ByteBuffer()
        hostile.writeInteger(UInt64(1) << 63)
        try await client.write(hostile, timeout: 10)
        let error = await expectStreamError(.invalidFrame) {
            _ = try await peer.readMessage(framedBy: wide, timeout: 10)
        }
        #expect(error?.message.contains("maximum") == true)
        let (left, _) = try await peer.readBuffer(ofMinLength: 8, maxLength: 8, timeout: 10)
        #expect(left == hostile, "the refused bytes stayed buffered")
        try await client.send(ByteBuffer(string: "after"), framedBy: wide, timeout: 10)
        #expect(try await peer.readMessage(framedBy: wide, timeout: 10).map { String(buffer: $0) } == "after")
        client.cancel()
        await server.stop()
    }

    @Test func aStreamEndingInsideAFrameSaysHowMuchWasLeft() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.send(ByteBuffer(string: "whole"), framedBy: framer, timeout: 10)
        try await client.write(ByteBuffer(bytes: [0, 0, 0, 9, 0x61]), timeout: 10)
        client.closeWrite()
        #expect(try await peer.readMessage(framedBy: framer, timeout: 10).map { String(buffer: $0) } == "whole")
        let error = await expectStreamError(.truncatedFrame) {
            _ = try await peer.readMessage(framedBy: framer, timeout: 10)
        }
        #expect(error?.message.contains("5 bytes") == true)
        client.cancel()
        await server.stop()
    }

    @Test func linesFromAPeerThatMixesEndingsComeWithoutThem() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.write("NICK a\r\nUSER b\nQUIT\r\n")
        client.closeWrite()
        var lines: [String] = []
        for try await line in peer.messages(framedBy: LineFramer(ending: .crlf, maximumLineLength: 510)) {
            lines.append(String(buffer: line))
        }
        #expect(lines == ["NICK a", "USER b", "QUIT"])
        client.cancel()
        await server.stop()
    }

    /// What came with a read is taken as a batch without waiting: the whole frames, then `nil`
    /// at a frame not all there, while a read waits, and at the end of the stream.
    @Test func theMessagesThatCameWithAReadAreTakenWithoutWaiting() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let lines = LineFramer(ending: .crlf, maximumLineLength: 64)
        #expect(try peer.readBufferedMessage(framedBy: lines) == nil, "nothing has come yet")
        // One small write: one segment on loopback, so one read pass brings all of it.
        try await client.write("one\r\ntwo\r\nthree\r\nfo")
        #expect(try await peer.readMessage(framedBy: lines, timeout: 10).map { String(buffer: $0) } == "one")
        var batch: [String] = []
        while let line = try peer.readBufferedMessage(framedBy: lines) { batch.append(String(buffer: line)) }
        #expect(batch == ["two", "three"])
        // A read that waits comes first: a whole line behind it is not taken ahead of it.
        async let waiting = peer.readBuffer(ofMinLength: 17, maxLength: 17, timeout: 10)
        try await Task.sleep(for: .milliseconds(50))
        try await client.write("ur\r\nfive\r\n")
        try await Task.sleep(for: .milliseconds(50))
        #expect(try peer.readBufferedMessage(framedBy: lines) == nil, "a line was taken ahead of a waiting read")
        try await client.write("six\r\n")
        #expect(try await String(buffer: waiting.0) == "four\r\nfive\r\nsix\r\n")
        client.closeWrite()
        #expect(try await peer.readMessage(framedBy: lines, timeout: 10) == nil)
        #expect(try peer.readBufferedMessage(framedBy: lines) == nil, "the stream has ended")
        client.cancel()
        await server.stop()
    }

    /// A line far over the maximum fails its read; dropping it, in bounded pieces, lets the
    /// next line through. A stream that ends inside the line ends the skip.
    @Test func anOverlongLineIsSkippedAndTheNextComesThrough() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let lines = LineFramer(ending: .crlf, maximumLineLength: 64)
        let long = String(repeating: "x", count: 100_000)
        async let written: Void = client.write(Data((long + "\r\nnext\r\n" + long).utf8), timeout: 10)
        await expectStreamError(.invalidFrame) { _ = try await peer.readMessage(framedBy: lines, timeout: 10) }
        #expect(try await peer.skipLine(timeout: 10))
        #expect(try await peer.readMessage(framedBy: lines, timeout: 10).map { String(buffer: $0) } == "next")
        try await written
        client.closeWrite()
        await expectStreamError(.invalidFrame) { _ = try await peer.readMessage(framedBy: lines, timeout: 10) }
        #expect(try await peer.skipLine(timeout: 10) == false, "the stream ended inside the line")
        client.cancel()
        await server.stop()
    }

    /// A framed read takes its frame and nothing more: a plain read after it gets what follows.
    @Test func framedAndPlainReadsShareTheStream() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.write("hello\r\nabcworld\r\n")
        #expect(try await peer.readMessage(framedBy: LineFramer(), timeout: 10).map { String(buffer: $0) } == "hello")
        #expect(try await peer.readText(count: 3) == "abc")
        #expect(try await peer.readMessage(framedBy: LineFramer(), timeout: 10).map { String(buffer: $0) } == "world")
        client.cancel()
        await server.stop()
    }

    @Test func theCompletionHandlerFormsReadAndSendMessages() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let sent: (any Error)? = await withCheckedContinuation { continuation in
            client.send(ByteBuffer(string: "handled"), framedBy: framer, timeout: 10) {
                continuation.resume(returning: $0)
            }
        }
        #expect(sent == nil)
        let received: (String?, (any Error)?) = await withCheckedContinuation { continuation in
            peer.readMessage(framedBy: framer, timeout: 10) { message, error in
                continuation.resume(returning: (message.map { String(buffer: $0) }, error))
            }
        }
        #expect(received.0 == "handled")
        #expect(received.1 == nil)
        // A message the framer cannot frame fails, with nothing sent, as a URLError.
        let refused: (any Error)? = await withCheckedContinuation { continuation in
            client.send(ByteBuffer(string: "a\nb"), framedBy: LineFramer(), timeout: 10) {
                continuation.resume(returning: $0)
            }
        }
        #expect(refused is URLError)
        client.cancel()
        await server.stop()
    }
}
