//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The async writes that returned before their bytes reached the kernel, counted under the
/// task's lock: while fewer than the session's `outboundBufferLimit` bytes are outstanding and
/// the channel takes more, a write on a connected task is queued and returns at once; past it,
/// or while the channel is full, a write waits as the completion-handler form does. A failure
/// of one that returned is kept for the next write.
struct WriteBehindLedger: Sendable {
    /// Set once the connection is up: before it, a write waits, so that a refused or failed
    /// connection fails the write that was waiting for it.
    var connected = false
    /// Set by `closeWrite()`, `captureStreams()` and `cancel()`, and never cleared (a connection
    /// that comes up afterwards does not undo it): from then on every write waits for its
    /// outcome, so that one the task can no longer send fails at once.
    private(set) var stopped = false
    /// The channel's writability, as the driver last saw it change: a full channel (its own
    /// buffer past SwiftNIO's high-water mark) makes writes wait, as `NIOAsyncChannel`'s do.
    var channelWritable = true
    /// Bytes of writes that returned and have not completed yet.
    private(set) var outstanding = 0
    /// The first failure of a write that had returned, not yet reported.
    private var failure: StreamTaskError?

    /// Whether a write of `count` bytes may return at once (and counts it if so).
    mutating func reserve(_ count: Int, limit: Int) -> Bool {
        guard connected, !stopped, channelWritable, failure == nil, outstanding + count <= limit else {
            return false
        }
        outstanding += count
        return true
    }

    /// No write returns early from here on.
    mutating func stopEarlyReturns() {
        stopped = true
    }

    /// A write that had returned completed, with `error` if it failed.
    mutating func complete(_ count: Int, error: StreamTaskError?) {
        outstanding -= count
        if failure == nil, let error { failure = error }
    }

    /// The failure of an earlier write that had returned, reported once.
    mutating func takeFailure() -> StreamTaskError? {
        defer { failure = nil }
        return failure
    }
}
