//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import StreamTaskCore
@testable import StreamTaskHTTP

/// The head gate with SwiftNIO's real response decoder on an `EmbeddedChannel`: whatever
/// follows a head in the same read is held, then released to the decoder or handed on.
@Suite struct HTTPResponseHeadGateTests {
    /// Records the HTTP parts that reach the end of the pipeline, and tells the gate of heads.
    final class Sink: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        let gate: HTTPResponseHeadGate
        var parts: [String] = []

        init(gate: HTTPResponseHeadGate) { self.gate = gate }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                gate.headArrived()
                parts.append("head \(head.status.code)")
            case .body(let bytes):
                parts.append("body \(String(buffer: bytes))")
            case .end:
                parts.append("end")
            }
        }
    }

    /// Records raw bytes, where the stream task's handler would be.
    final class BytesSink: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var received: [String] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received.append(String(buffer: unwrapInboundIn(data)))
        }
    }

    private func channel() throws -> (EmbeddedChannel, HTTPResponseHeadGate, Sink) {
        let gate = HTTPResponseHeadGate()
        let sink = Sink(gate: gate)
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(gate)
        try pipeline.addHandler(HTTPRequestEncoder())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
        try pipeline.addHandler(sink)
        try channel.writeOutbound(
            HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        return (channel, gate, sink)
    }

    @Test func holdsWhatFollowsA200HeadUntilRemovedThenHandsItOn() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nX: y\r\n\r\nstream bytes, not a body"))
        #expect(sink.parts == ["head 200"])
        #expect(gate.heldByteCount == 24)
        let pipeline = channel.pipeline.syncOperations
        pipeline.removeHandler(sink, promise: nil)
        let bytes = BytesSink()
        try pipeline.addHandler(bytes)
        pipeline.removeHandler(try pipeline.handler(type: HTTPRequestEncoder.self), promise: nil)
        // The decoder leaves on the next turn of the loop; only then may the gate go.
        let decoderGone = channel.eventLoop.makePromise(of: Void.self)
        pipeline.removeHandler(
            try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self), promise: decoderGone)
        channel.embeddedEventLoop.run()
        try decoderGone.futureResult.wait()
        #expect(bytes.received.isEmpty, "still held")
        gate.leave(on: channel.eventLoop)
        try channel.writeInbound(ByteBuffer(string: " and more"))
        #expect(sink.parts == ["head 200"])
        #expect(bytes.received == ["stream bytes, not a body", " and more"])
        _ = try channel.finish()
    }

    @Test func releasedBytesAreDecodedAsTheBody() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"))
        #expect(sink.parts == ["head 200"])
        gate.release()
        try channel.writeInbound(ByteBuffer(string: "lo"))
        #expect(sink.parts == ["head 200", "body hel", "body lo", "end"])
        _ = try channel.finish()
    }

    /// RFC 9112 (section 2.2) lets a recipient take a lone LF as a line end in the head;
    /// SwiftNIO's decoder does not, so the gate adds the CR. What follows the head is untouched.
    @Test func aHeadWithBareLineFeedsIsDecodedAndTheBodyKeepsItsOwn() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\nContent-Length: 5\n\na\nb\r\n"))
        #expect(sink.parts == ["head 200"])
        gate.release()
        #expect(sink.parts == ["head 200", "body a\nb\r\n", "end"])
        _ = try channel.finish()
    }

    /// A CR at the end of one read and its LF at the start of the next are one line end, not a
    /// CR followed by a bare LF.
    @Test func aLineEndSplitBetweenReadsGetsNoSecondCarriageReturn() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r"))
        try channel.writeInbound(ByteBuffer(string: "\nContent-Length: 2\r"))
        try channel.writeInbound(ByteBuffer(string: "\n\r\nhi"))
        #expect(sink.parts == ["head 200"])
        gate.release()
        #expect(sink.parts == ["head 200", "body hi", "end"])
        _ = try channel.finish()
    }

    @Test(arguments: [
        ("a\n", false, "a\r\n"), ("a\r\n", false, "a\r\n"), ("\n", true, "\n"), ("\n", false, "\r\n"),
        ("abc", false, "abc"), ("", false, ""),
    ])
    func aLineGetsACarriageReturnOnlyWhereItLacksOne(line: String, afterCR: Bool, expected: String) {
        let fixed = HTTPResponseHeadGate.endingInCRLF(ByteBuffer(string: line), afterCarriageReturn: afterCR)
        #expect(String(buffer: fixed) == expected)
    }

    /// A header line that never ends is not held (and searched again on every read): the
    /// decoder gets it as it comes, and its own limit on a head's size stops it.
    @Test func aLineWithNoEndIsPassedOnAndTheDecodersLimitStopsIt() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nX-Endless: "))
        #expect(gate.heldByteCount == 0)
        var refused: (any Error)?
        for _ in 0..<16 {  // 256 KiB in all, well past SwiftNIO's 80 KiB for a head
            do {
                try channel.writeInbound(ByteBuffer(repeating: UInt8(ascii: "a"), count: 16 * 1024))
            } catch {
                refused = error
                break
            }
            #expect(gate.heldByteCount == 0)
        }
        #expect(refused != nil, "the decoder refuses a head past its limit")
        #expect(sink.parts.isEmpty)
        _ = try? channel.finish()
    }

    /// SwiftNIO's decoder reads a status line without end: the gate stops it at its own limit.
    @Test func aStatusLineWithNoEndIsRefusedAtTheGatesLimit() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 "))
        var refused: (any Error)?
        for _ in 0..<16 {  // a reason phrase of 256 KiB, past the gate's 128 KiB
            do {
                try channel.writeInbound(ByteBuffer(repeating: UInt8(ascii: "a"), count: 16 * 1024))
            } catch {
                refused = error
                break
            }
        }
        #expect(refused as? HTTPParserError == .headerOverflow, "\(String(describing: refused))")
        #expect(gate.heldByteCount == 0)
        #expect(sink.parts.isEmpty)
        _ = try? channel.finish()
    }

    @Test func skipsInformationalHeadsAndKeepsBytesAfterA101() throws {
        let (channel, gate, sink) = try channel()
        try channel.writeInbound(
            ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n"))
        try channel.writeInbound(ByteBuffer(string: "Connection: Upgrade\r\n\r\n\u{1}\u{2}raw"))
        #expect(sink.parts == ["head 101", "end"])
        #expect(gate.heldByteCount == 5)
        _ = try channel.finish()
    }
}
