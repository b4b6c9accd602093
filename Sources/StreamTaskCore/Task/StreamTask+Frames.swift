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

extension StreamTask {
    /// Reads one whole frame, as `scan` finds it among the buffered bytes: a read like the
    /// others, in their order, under their rules (a timeout or a cancellation loses nothing;
    /// a frame the bytes cannot start fails the read and leaves them buffered).
    ///
    /// - Returns: Exactly the frame's bytes; at the end of the stream, what was left (less than
    ///   a frame, possibly nothing), with `atEOF`.
    package func readFrame(_ scan: FrameScan, timeout: TimeInterval) async throws -> (bytes: ByteBuffer, atEOF: Bool) {
        if !Task.isCancelled, let bytes = readBufferedFrame(scan) { return (bytes, false) }
        let outcome = try await awaitOperation(.readFrame(scan), timeout: timeout)
        return (outcome.bytes, outcome.atEOF)
    }

    /// The next frame, when its bytes are all buffered now and a read issued now would
    /// complete with it at once: no other read is queued, the input is open. `nil` otherwise,
    /// with nothing taken (bytes that cannot start a frame included: a read reports them).
    package func readBufferedFrame(_ scan: FrameScan) -> ByteBuffer? {
        readAtOnce(.readFrame(scan))
    }

    /// Reads one whole frame as ``readFrame(_:timeout:)`` does, and hands the outcome to
    /// `completion` on the session's delegate queue, as the completion-handler reads do.
    package func readFrame(
        _ scan: FrameScan,
        timeout: TimeInterval,
        completion: @escaping @Sendable (Result<(bytes: ByteBuffer, atEOF: Bool), StreamTaskError>) -> Void
    ) {
        let queue = session.callbackQueue
        if let bytes = readBufferedFrame(scan) {
            queue.async { completion(.success((bytes, false))) }
            return
        }
        submit(.readFrame(scan), timeout: timeout) { result in
            let outcome = result.map { (bytes: $0.bytes, atEOF: $0.atEOF) }
            queue.async { completion(outcome) }
        }
    }

    /// Runs `body` on the session's delegate queue, where completion handlers run.
    package func onDelegateQueue(_ body: @escaping @Sendable () -> Void) {
        session.callbackQueue.async(body)
    }

    /// The session's read timeout, for reads other modules of the package make.
    package var sessionReadTimeout: TimeInterval { configuration.timeoutIntervalForRead }

    /// The session's write timeout, for writes other modules of the package make.
    package var sessionWriteTimeout: TimeInterval { configuration.timeoutIntervalForWrite }
}
