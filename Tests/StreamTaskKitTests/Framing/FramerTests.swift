//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import StreamTaskCore
import StreamTaskFraming
import Testing

/// Cuts `stream` into messages as a task's reads do: the bytes come in the pieces `cuts`
/// gives, and after each piece every whole frame at the front is taken. At the end, what is
/// left goes to the framer's `messageAtEnd`.
func frameMessages<Framer: MessageFramer>(
    _ stream: [UInt8], cutAt cuts: [Int], by framer: Framer
) throws -> [Framer.Message] {
    var buffered = ByteBuffer()
    var messages: [Framer.Message] = []
    var start = 0
    for end in cuts + [stream.count] where end > start {
        buffered.writeBytes(stream[start..<end])
        start = end
        while buffered.readableBytes > 0, let length = try framer.frameLength(in: buffered),
            length <= buffered.readableBytes
        {
            #expect(length <= framer.maximumFrameLength)
            messages.append(try framer.message(fromFrame: buffered.readSlice(length: length)!))
        }
        #expect(buffered.readableBytes <= framer.maximumFrameLength, "never more than a frame's maximum waits")
    }
    if buffered.readableBytes > 0 { messages.append(try framer.messageAtEnd(buffered)) }
    return messages
}

/// The bytes of `messages` framed by `framer`, one after another.
func framed<Framer: MessageFramer>(_ messages: [Framer.Message], by framer: Framer) throws -> [UInt8] {
    var buffer = ByteBuffer()
    for message in messages { try framer.frame(message, into: &buffer) }
    return Array(buffer.readableBytesView)
}

/// Every way of cutting a short stream in two, in bytes one at a time, and some random cuts.
func cuttings(of count: Int) -> [[Int]] {
    var all: [[Int]] = [[], Array(1..<Swift.max(count, 1))]
    all += (1..<Swift.max(count, 1)).map { [$0] }
    var random = SystemRandomNumberGenerator()
    for _ in 0..<20 {
        all.append(Array(Set((0..<4).map { _ in Int.random(in: 0...count, using: &random) })).sorted())
    }
    return all
}

func strings(_ buffers: [ByteBuffer]) -> [String] { buffers.map { String(buffer: $0) } }

@Suite struct FramerTests {
    @Test func linesComeWholeHoweverTheStreamIsCut() throws {
        let stream = Array("NICK a\r\nUSER b 0 * :B\r\n\r\nPING x\n".utf8)
        for cuts in cuttings(of: stream.count) {
            let lines = try frameMessages(stream, cutAt: cuts, by: LineFramer(ending: .crlf, maximumLineLength: 64))
            #expect(strings(lines) == ["NICK a", "USER b 0 * :B", "", "PING x"], "cut at \(cuts)")
        }
    }

    @Test func anLFFramerKeepsTheCR() throws {
        let lines = try frameMessages(Array("a\r\nb\n".utf8), cutAt: [], by: LineFramer(ending: .lf))
        #expect(strings(lines) == ["a\r", "b"])
    }

    @Test func aLineOfTheMaximumLengthPassesAndOneByteMoreFails() throws {
        let framer = LineFramer(ending: .crlf, maximumLineLength: 4)
        #expect(strings(try frameMessages(Array("abcd\r\n".utf8), cutAt: [], by: framer)) == ["abcd"])
        #expect(throws: StreamTaskError.self) {
            _ = try frameMessages(Array("abcde\r\n".utf8), cutAt: [], by: framer)
        }
        // Without its ending yet, a line past the maximum is refused as soon as it is.
        do {
            _ = try framer.frameLength(in: ByteBuffer(string: "abcdefg"))
            Issue.record("an over-long line was not refused")
        } catch let error as StreamTaskError {
            #expect(error.code == .invalidFrame)
        }
    }

    /// A line of exactly the maximum length whose CR has come and whose LF has not is not
    /// refused early, nor cut: the way the stream is cut makes no difference.
    @Test(arguments: [LineFramer.OverlongLines.fail, .cut])
    func aLineOfTheMaximumLengthIsNotJudgedBeforeItsLineFeed(overlong: LineFramer.OverlongLines) throws {
        let framer = LineFramer(ending: .crlf, maximumLineLength: 4, overlongLines: overlong)
        let stream = Array("abcd\r\nefg\r\n".utf8)
        for cuts in cuttings(of: stream.count) {
            #expect(strings(try frameMessages(stream, cutAt: cuts, by: framer)) == ["abcd", "efg"], "cut at \(cuts)")
        }
    }

    @Test func overlongLinesCanArriveInPieces() throws {
        let framer = LineFramer(ending: .crlf, maximumLineLength: 4, overlongLines: .cut)
        let stream = Array("abcdefghij\r\nok\r\n".utf8)
        for cuts in cuttings(of: stream.count) {
            let lines = try frameMessages(stream, cutAt: cuts, by: framer)
            #expect(strings(lines) == ["abcd", "efgh", "ij", "ok"], "cut at \(cuts)")
        }
    }

    @Test func aStreamEndingInsideALineIsTruncatedUnlessAllowed() throws {
        do {
            _ = try frameMessages(Array("a\r\nhalf".utf8), cutAt: [], by: LineFramer())
            Issue.record("a truncated line was accepted")
        } catch let error as StreamTaskError {
            #expect(error.code == .truncatedFrame)
            #expect(error.message.contains("4 bytes"))
        }
        let lenient = LineFramer(acceptsUnendedLastLine: true)
        #expect(strings(try frameMessages(Array("a\r\nhalf".utf8), cutAt: [], by: lenient)) == ["a", "half"])
    }

    @Test func linesToSendMayNotHoldALineFeed() throws {
        var buffer = ByteBuffer()
        #expect(throws: StreamTaskError.self) {
            try LineFramer().frame(ByteBuffer(string: "a\nb"), into: &buffer)
        }
        try LineFramer(ending: .crlf).frame(ByteBuffer(string: "a"), into: &buffer)
        try LineFramer(ending: .lf).frame(ByteBuffer(string: "b"), into: &buffer)
        try LineFramer(ending: .either).frame(ByteBuffer(string: "c"), into: &buffer)
        // A line that ends with a CR of its own keeps it when read back.
        try LineFramer(ending: .either).frame(ByteBuffer(string: "d\r"), into: &buffer)
        #expect(String(buffer: buffer) == "a\r\nb\nc\nd\r\r\n")
        let lines = try frameMessages(Array(buffer.readableBytesView), cutAt: [], by: LineFramer(ending: .either))
        #expect(strings(lines) == ["a", "b", "c", "d\r"])
    }

    /// Every prefix width, in both byte orders, counting itself and not.
    static let prefixes: [(Int, Endianness, Bool)] = [1, 2, 4, 8].flatMap { width in
        [Endianness.big, .little].flatMap { order in [false, true].map { (width, order, $0) } }
    }

    @Test(arguments: prefixes)
    func lengthPrefixedMessagesComeWholeHoweverTheStreamIsCut(prefix: (Int, Endianness, Bool)) throws {
        let (width, order, countsItself) = prefix
        let framer = LengthPrefixedFramer(
            prefix: FramingInteger(width: width, byteOrder: order), prefixCountsItself: countsItself,
            maximumMessageLength: 200)
        let messages = ["", "a", "hello", String(repeating: "x", count: 200)].map { ByteBuffer(string: $0) }
        let stream = try framed(messages, by: framer)
        for cuts in cuttings(of: stream.count) {
            #expect(try frameMessages(stream, cutAt: cuts, by: framer) == messages, "cut at \(cuts)")
        }
    }

    @Test func theLengthPrefixIsReadAsSaid() throws {
        var buffer = ByteBuffer()
        try LengthPrefixedFramer(prefix: FramingInteger(width: 2, byteOrder: .little), prefixCountsItself: true)
            .frame(ByteBuffer(string: "abc"), into: &buffer)
        #expect(Array(buffer.readableBytesView) == [5, 0] + Array("abc".utf8))
    }

    @Test func aHugeLengthPrefixIsRefusedBeforeAnyOfItsMessageIsRead() throws {
        let framer = LengthPrefixedFramer(prefix: FramingInteger(width: 8), maximumMessageLength: 1 << 20)
        var prefix = ByteBuffer()
        prefix.writeInteger(UInt64(1) << 63)
        do {
            _ = try framer.frameLength(in: prefix)
            Issue.record("a prefix of 2^63 was accepted")
        } catch let error as StreamTaskError {
            #expect(error.code == .invalidFrame)
        }
        // One past the maximum is refused too, the maximum itself is not.
        var over = ByteBuffer()
        over.writeInteger(UInt64((1 << 20) + 1))
        #expect(throws: StreamTaskError.self) { _ = try framer.frameLength(in: over) }
        var at = ByteBuffer()
        at.writeInteger(UInt64(1 << 20))
        #expect(try framer.frameLength(in: at) == 8 + (1 << 20))
    }

    @Test func aPrefixThatCountsItselfCannotBeShorterThanItself() throws {
        let framer = LengthPrefixedFramer(prefix: FramingInteger(width: 4), prefixCountsItself: true)
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(3))
        #expect(throws: StreamTaskError.self) { _ = try framer.frameLength(in: buffer) }
    }

    @Test func aMessageLongerThanAOneBytePrefixAllowsIsRefusedAsItIsSent() {
        var buffer = ByteBuffer()
        #expect(throws: StreamTaskError.self) {
            try LengthPrefixedFramer(prefix: FramingInteger(width: 1)).frame(
                ByteBuffer(repeating: 0, count: 256), into: &buffer)
        }
        #expect(buffer.readableBytes == 0)
    }

    @Test(arguments: [1, 2, 3, 4], [1, 2, 4, 8])
    func typeLengthValueMessagesComeWholeHoweverTheStreamIsCut(typeWidth: Int, lengthWidth: Int) throws {
        let framer = TypeLengthValueFramer(typeWidth: typeWidth, lengthWidth: lengthWidth, maximumValueLength: 100)
        let messages = [(1, "one"), (0, ""), (200, "two hundred")].map {
            TypeLengthValueFramer.Message(type: UInt32($0.0), value: ByteBuffer(string: $0.1))
        }
        let stream = try framed(messages, by: framer)
        for cuts in cuttings(of: stream.count) {
            #expect(try frameMessages(stream, cutAt: cuts, by: framer) == messages, "cut at \(cuts)")
        }
    }

    @Test func aTypeTooWideForItsFieldIsRefusedAsItIsSent() {
        var buffer = ByteBuffer()
        #expect(throws: StreamTaskError.self) {
            try TypeLengthValueFramer(typeWidth: 1).frame(.init(type: 256, value: ByteBuffer()), into: &buffer)
        }
    }

    @Test func delimitedMessagesComeWholeEvenWithTheDelimiterCut() throws {
        let framer = DelimiterFramer(delimiter: Array("\r\n.\r\n".utf8), maximumMessageLength: 64)
        let messages = ["first\r\nline", "", "x.\r\ny"].map { ByteBuffer(string: $0) }
        let stream = try framed(messages, by: framer)
        for cuts in cuttings(of: stream.count) {
            #expect(strings(try frameMessages(stream, cutAt: cuts, by: framer)) == strings(messages), "cut at \(cuts)")
        }
    }

    @Test func aMessageThatWouldEndEarlyIsRefusedAsItIsSent() {
        let framer = DelimiterFramer(delimiter: Array("\r\n.\r\n".utf8))
        var buffer = ByteBuffer()
        // Its last bytes and the delimiter's first make a delimiter before the frame's end.
        #expect(throws: StreamTaskError.self) { try framer.frame(ByteBuffer(string: "a\r\n.\r\n"), into: &buffer) }
        #expect(throws: StreamTaskError.self) { try framer.frame(ByteBuffer(string: "a\r\n."), into: &buffer) }
        #expect(buffer.readableBytes == 0, "nothing of a refused message is written")
    }

    @Test func aDelimitedMessageOverTheMaximumIsRefused() throws {
        let framer = DelimiterFramer(delimiter: [0], maximumMessageLength: 3)
        #expect(throws: Never.self) { _ = try framer.frameLength(in: ByteBuffer(bytes: [1, 2, 3, 0])) }
        #expect(try framer.frameLength(in: ByteBuffer(bytes: [1, 2, 3, 4])) == nil)
        #expect(framer.maximumFrameLength == 4)
    }
}
