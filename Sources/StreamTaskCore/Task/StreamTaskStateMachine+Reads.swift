//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskStateMachine {
    /// Whether the input has cleanly ended with nothing left buffered.
    private var atCleanEnd: Bool { inbound.hasEndedCleanly && bufferedByteCount == 0 }

    /// The outcome of a read at the head of the read lane, or `nil` while it must wait. A read
    /// that succeeds has at least one byte or is at the end of the stream.
    mutating func completeRead(_ item: Pending, minLength: Int, maxLength: Int) -> Action? {
        if input == .shutDown { return .fail(item.id, .readClosed, to: item.completion) }
        let available = bufferedByteCount
        if available > 0 && available >= minLength {
            let bytes = take(Swift.min(available, maxLength))
            return .succeedRead(item.id, bytes, atEOF: atCleanEnd, to: item.completion)
        }
        if inbound.hasEnded { return readAtEnd(item) }
        if case .closed(let error?) = connection {
            return .fail(item.id, error, to: item.completion)
        }
        // A minimum of 0 waits for a byte too: an empty read that is not at the end would let a
        // loop that reads until `atEOF` spin while nothing comes.
        return nil
    }

    /// The outcome of a delimited read at the head of the read lane, or `nil` while it must wait.
    mutating func completeReadThrough(_ item: Pending, delimiter: [UInt8], maxLength: Int) -> Action? {
        if input == .shutDown { return .fail(item.id, .readClosed, to: item.completion) }
        let available = bufferedByteCount
        if let end = buffer.endOfFirst(delimiter, within: Swift.min(available, maxLength)) {
            let bytes = take(end)
            return .succeedRead(item.id, bytes, atEOF: atCleanEnd, to: item.completion)
        }
        if available >= maxLength {
            return .fail(
                item.id,
                StreamTaskError(
                    .delimiterNotFound,
                    "no delimiter within the first \(maxLength) bytes; the bytes stay buffered for the next read"
                ),
                to: item.completion
            )
        }
        if inbound.hasEnded { return readAtEnd(item) }
        if case .closed(let error?) = connection {
            return .fail(item.id, error, to: item.completion)
        }
        return nil
    }

    /// The outcome of a read of one frame at the head of the read lane, or `nil` while it must
    /// wait; and the bytes it waits for (the frame's length once the bytes tell it, the
    /// framer's maximum until then), which input may fill past the high-water mark. A frame
    /// the bytes cannot start fails the read and leaves them buffered. At the end of the
    /// stream the read gets what is left, at the end: less than a frame, which the framer
    /// reports as it likes.
    mutating func completeReadFrame(_ item: Pending, scan: FrameScan) -> (action: Action?, bytesWanted: Int) {
        if input == .shutDown { return (.fail(item.id, .readClosed, to: item.completion), 0) }
        var bytesWanted = scan.maxLength
        if let view = buffer.contiguousView() {
            switch scan.find(in: view) {
            case .refused(let error):
                return (.fail(item.id, error, to: item.completion), 0)
            case .frame(let length) where length <= view.readableBytes:
                let bytes = take(length)
                return (.succeedRead(item.id, bytes, atEOF: atCleanEnd, to: item.completion), 0)
            case .frame(let length):
                bytesWanted = length
            case .notYet:
                break
            }
        }
        if inbound.hasEnded { return (readAtEnd(item), 0) }
        if case .closed(let error?) = connection {
            return (.fail(item.id, error, to: item.completion), 0)
        }
        return (nil, bytesWanted)
    }

    /// A read that reached the end of input: what is left, at the end of stream, or, after a
    /// truncation, its error (leaving what is left for a smaller read).
    private mutating func readAtEnd(_ item: Pending) -> Action {
        if let truncation = inbound.truncation { return .fail(item.id, truncation, to: item.completion) }
        return .succeedRead(item.id, take(bufferedByteCount), atEOF: true, to: item.completion)
    }

    /// Takes `count` bytes off the front of the buffer.
    private mutating func take(_ count: Int) -> ByteBuffer {
        buffer.dequeue(count)
    }
}

extension ByteBuffer {
    /// Whether the readable bytes begin like a TLS handshake record (content type 22, then a
    /// major version of 3), as a ClientHello does.
    var startsLikeATLSHandshake: Bool {
        guard let type = getInteger(at: readerIndex, as: UInt8.self), type == 22 else { return false }
        guard let major = getInteger(at: readerIndex + 1, as: UInt8.self) else { return true }
        return major == 3
    }
}
