//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// A byte queue kept as an optional buffer, `nil` when empty: what a task's state machine and
/// its read-ahead both hold, bytes received in order, taken from the front.
extension ByteBuffer? {
    /// Bytes buffered, 0 when none are.
    var queuedByteCount: Int { self?.readableBytes ?? 0 }

    /// Adds `bytes` behind what is queued (without a copy when nothing is).
    mutating func enqueue(_ bytes: ByteBuffer) {
        guard var queued = self, queued.readableBytes > 0 else {
            self = bytes.readableBytes > 0 ? bytes : nil
            return
        }
        self = nil  // so that `queued` holds the only reference and grows in place
        var more = bytes
        queued.writeBuffer(&more)
        self = queued
    }

    /// Puts `bytes` in front of what is queued.
    mutating func requeueInFront(_ bytes: ByteBuffer) {
        let rest = self
        self = nil
        enqueue(bytes)
        if let rest { enqueue(rest) }
    }

    /// Takes `count` queued bytes off the front (which must be there); reclaims the space read
    /// once it is both over 64 KiB and more than what is left.
    mutating func dequeue(_ count: Int) -> ByteBuffer {
        guard count > 0, var queued = self else { return ByteBuffer() }
        precondition(count <= queued.readableBytes, "took more bytes than are queued")
        self = nil
        let bytes = queued.readSlice(length: count)!
        if queued.readableBytes > 0 {
            if queued.readerIndex > 64 * 1024 && queued.readerIndex > queued.readableBytes {
                queued.discardReadBytes()
            }
            self = queued
        }
        return bytes
    }
}
