//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `HTTPResponseHeadGate`, the data tasks' own handling of response bytes, on any bytes cut into
// any reads. Before the head: every slice it passes ends with a line feed or holds none (the
// start of a line whose end has not come), and a line feed without a carriage return before
// it gets one (RFC 9112, section 2.2, as SwiftNIO's decoder wants CRLF). A blank line ends the
// head (as NIO's decoder would report it): after that nothing passes until the owner decides;
// once released, the held bytes and every later read pass in order and unchanged. Nothing is
// lost, repeated or reordered.
//
// Input: bytes 0...3 the read sizes, the rest is what the server sent.

import NIOCore
import NIOEmbedded

/// Records what the gate passes on, and plays the decoder: a blank line is the end of the head.
final class GateRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let gate: HTTPResponseHeadGate
    var passed: [UInt8] = []
    var slicesBeforeHead: [[UInt8]] = []
    var passedAfterHead = 0
    var headSeen = false
    private var line: [UInt8] = []

    init(gate: HTTPResponseHeadGate) {
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(buffer: unwrapInboundIn(data))
        passed += bytes
        if headSeen {
            passedAfterHead += bytes.count
            return
        }
        slicesBeforeHead.append(bytes)
        for byte in bytes {
            line.append(byte)
            if byte == UInt8(ascii: "\n") {
                if line == [10] || line == [13, 10] {
                    headSeen = true
                    gate.headArrived()
                }
                line = []
            }
        }
    }
}

/// What the gate should pass on for `bytes`: the head's lines ending in CRLF, a CR put before
/// every line feed that has none, up to the first blank line; the rest as it is.
func expectedAfterGate(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var lineLength = 0  // bytes of the current line, its CR included
    for (index, byte) in bytes.enumerated() {
        if byte == UInt8(ascii: "\n") {
            let hadCR = out.last == UInt8(ascii: "\r") && lineLength > 0
            if !hadCR { out.append(UInt8(ascii: "\r")) }
            out.append(byte)
            if lineLength == (hadCR ? 1 : 0) {
                return out + bytes[(index + 1)...]
            }
            lineLength = 0
        } else {
            out.append(byte)
            lineLength += 1
        }
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeadGate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    let bytes = input.rest
    let chunks = FuzzInput.chunks(bytes, sizes: sizes, maxChunk: 96)
    let half = chunks.count / 2

    let gate = HTTPResponseHeadGate()
    let recorder = GateRecorder(gate: gate)
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.addHandler(gate)
        try channel.pipeline.syncOperations.addHandler(recorder)
        for chunk in chunks[..<half] {
            try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
        }
        let expected = expectedAfterGate(bytes)
        if recorder.headSeen {
            require(
                recorder.passedAfterHead == 0,
                "\(recorder.passedAfterHead) bytes passed after the head before a decision")
        }
        for slice in recorder.slicesBeforeHead {
            require(
                slice.last == UInt8(ascii: "\n") || !slice.contains(UInt8(ascii: "\n")),
                "a slice before the head holds a line feed but does not end with it")
        }
        require(recorder.passed.count <= expected.count, "more bytes passed than came")
        require(
            recorder.passed == Array(expected[..<recorder.passed.count]),
            "the bytes passed are not the input's, in order, with CRLF line ends")
        // The owner decides once the head is there (never before: the data task asks it then),
        // whether that was in the first half of the reads or later.
        var released = recorder.headSeen
        if released { gate.release() }
        for chunk in chunks[half...] {
            try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
        }
        if !released, recorder.headSeen {
            require(
                recorder.passedAfterHead == 0,
                "\(recorder.passedAfterHead) bytes passed after the head before a decision")
            released = true
            gate.release()
        }
        // Released, or still before the head (where nothing is held): everything has passed.
        require(
            recorder.passed == expected,
            "\(recorder.passed.count) bytes passed of the \(expected.count) expected, or out of order")
        require(gate.heldByteCount == 0, "\(gate.heldByteCount) bytes still held")
        _ = try channel.finish()
    } catch {
        require(false, "the pipeline threw \(error)")
    }
    return 0
}
