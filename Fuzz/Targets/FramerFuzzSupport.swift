//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// What every framer's target checks: a framer reads a stream as a task's state machine reads
// it (`FrameScan`, the machine's own rule, on the bytes buffered as they come), and the frames
// it finds, and where it refuses or stops, do not depend on how the stream was cut into reads;
// no more than a frame's maximum ever waits; each frame makes a message or a clear error, and
// a message framed again reads back the same.

import NIOCore

/// How a read of the stream ended: refused after `consumed` bytes of frames, or at the end
/// of the stream with `leftover` bytes that made no frame.
enum FramedEnd: Equatable {
    case refused(consumed: Int)
    case endOfStream(leftover: Int)
}

/// Reads `chunks` one after another as the machine would, taking every whole frame at the
/// front after each.
func readFrames<Framer: MessageFramer>(_ chunks: [[UInt8]], by framer: Framer) -> (frames: [ByteBuffer], end: FramedEnd)
{
    let scan = FrameScan(maxLength: framer.maximumFrameLength) { try framer.frameLength(in: $0) }
    var buffered = ByteBuffer()
    var frames: [ByteBuffer] = []
    var consumed = 0
    for chunk in chunks {
        buffered.writeBytes(chunk)
        while buffered.readableBytes > 0 {
            switch scan.find(in: buffered) {
            case .refused:
                return (frames, .refused(consumed: consumed))
            case .frame(let length) where length <= buffered.readableBytes:
                frames.append(buffered.readSlice(length: length)!)
                consumed += length
                continue
            case .frame, .notYet:
                break
            }
            break
        }
        require(
            buffered.readableBytes < framer.maximumFrameLength,
            "\(buffered.readableBytes) bytes wait, at or past the maximum frame of \(framer.maximumFrameLength)")
    }
    return (frames, .endOfStream(leftover: buffered.readableBytes))
}

/// The checks, for `stream` cut as `sizes` say.
func checkFramer<Framer: MessageFramer>(
    _ framer: Framer, stream: [UInt8], sizes: [UInt8], same: (Framer.Message, Framer.Message) -> Bool
) {
    let whole = readFrames([stream], by: framer)
    let cut = readFrames(FuzzInput.chunks(stream, sizes: sizes, maxChunk: 64), by: framer)
    require(whole.frames == cut.frames, "one read found \(whole.frames.count) frames, several \(cut.frames.count)")
    require(whole.end == cut.end, "one read ended \(whole.end), several \(cut.end)")
    for frame in whole.frames {
        require(frame.readableBytes <= framer.maximumFrameLength, "a frame past the maximum")
        guard let message = try? framer.message(fromFrame: frame) else { continue }
        var again = ByteBuffer()
        guard (try? framer.frame(message, into: &again)) != nil else { continue }
        let reread = readFrames([Array(again.readableBytesView)], by: framer)
        require(
            reread.frames.count == 1 && reread.end == .endOfStream(leftover: 0),
            "a message framed again is not one frame")
        if let back = try? framer.message(fromFrame: reread.frames[0]) {
            require(same(back, message), "the message \(message) framed again reads back as \(back)")
        } else {
            require(false, "a message framed again makes no message")
        }
    }
    if case .endOfStream(let leftover) = whole.end, leftover > 0 {
        var rest = ByteBuffer(bytes: stream.suffix(leftover))
        _ = try? framer.messageAtEnd(rest.readSlice(length: leftover)!)
    }
}
