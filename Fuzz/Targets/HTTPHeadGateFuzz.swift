// `HTTPResponseHeadGate`, the data tasks' own handling of response bytes, on any bytes cut into
// any reads. Before the head: every slice it passes ends with a line feed, and the slices are
// the input's bytes in order. A blank line ends the head (as NIO's decoder would report it):
// after that nothing passes until the owner decides; once released, the held bytes and every
// later read pass in order. Nothing is lost, repeated or reordered.
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
        if recorder.headSeen {
            require(recorder.passedAfterHead == 0, "\(recorder.passedAfterHead) bytes passed after the head before a decision")
        }
        for slice in recorder.slicesBeforeHead {
            require(slice.last == UInt8(ascii: "\n"), "a slice before the head does not end with a line feed")
        }
        require(recorder.passed == Array(bytes[..<recorder.passed.count]), "the bytes passed are not the input's, in order")
        gate.release()
        for chunk in chunks[half...] {
            try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
        }
        if recorder.headSeen {
            require(recorder.passed == bytes, "after release, \(recorder.passed.count) of \(bytes.count) bytes passed, or out of order")
        } else {
            require(recorder.passed == Array(bytes[..<recorder.passed.count]), "bytes out of order")
            require(gate.heldByteCount + recorder.passed.count == bytes.count, "bytes lost before the head")
        }
        _ = try channel.finish()
    } catch {
        require(false, "the pipeline threw \(error)")
    }
    return 0
}
