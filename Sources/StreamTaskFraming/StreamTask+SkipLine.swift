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
import StreamTaskCore

extension StreamTask {
    /// Drops the rest of the line at the head of the stream, its line feed included: what a
    /// line protocol does with a line that a read refused as too long (a ``LineFramer`` with
    /// ``LineFramer/OverlongLines/fail`` leaves it buffered), before it goes on with the next.
    ///
    /// The bytes are read and dropped in pieces as they come, never more than 16 KiB buffered
    /// for it, so an endless line costs the reader bounded memory. It is a read like the
    /// others, in their order.
    ///
    /// - Parameter timeout: Seconds to wait for the line's end; 0 waits for ever. A timeout
    ///   leaves the pieces already dropped dropped: call again to go on.
    /// - Returns: `true` once the line feed was dropped, `false` when the stream ended first.
    public func skipLine(timeout: TimeInterval) async throws -> Bool {
        while let piece = try await readMessage(framedBy: LineRemainderFramer(), timeout: timeout) {
            if piece.readableBytesView.last == UInt8(ascii: "\n") { return true }
        }
        return false
    }
}

/// The rest of a line, in pieces: whatever is buffered, up to and including the first line
/// feed, and at most 16 KiB at a time.
struct LineRemainderFramer: MessageFramer {
    typealias Message = ByteBuffer

    var maximumFrameLength: Int { 16 * 1024 }

    func frameLength(in bytes: ByteBuffer) throws -> Int? {
        let view = bytes.readableBytesView.prefix(maximumFrameLength)
        if let newline = view.firstIndex(of: UInt8(ascii: "\n")) { return newline - view.startIndex + 1 }
        return view.isEmpty ? nil : view.count
    }

    func message(fromFrame frame: ByteBuffer) throws -> ByteBuffer { frame }

    func frame(_ message: ByteBuffer, into buffer: inout ByteBuffer) throws {
        buffer.writeImmutableBuffer(message)
    }
}
