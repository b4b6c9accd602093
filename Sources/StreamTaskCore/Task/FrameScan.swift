//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// How a read of one framed message finds its frame among the bytes buffered: a framer's rule,
/// as the task's state machine asks it (see `StreamTask.readFrame(_:timeout:)`).
///
/// The machine asks as bytes come, on the buffered bytes themselves: a read of a frame takes
/// exactly the frame's bytes and leaves the rest buffered, so nothing is read ahead of the
/// reader beyond the task's inbound limit, and a timeout loses nothing.
package struct FrameScan: Sendable {
    /// The longest frame the read takes. Bytes that make no frame within it fail the read
    /// (they stay buffered).
    package let maxLength: Int
    /// Given the bytes buffered (a frame starts at the first), the whole frame's length as
    /// soon as they tell it (it may be more than are there yet), `nil` while they do not.
    /// Throws when they cannot start a frame the framer accepts.
    package let frameLength: @Sendable (ByteBuffer) throws -> Int?

    package init(maxLength: Int, frameLength: @escaping @Sendable (ByteBuffer) throws -> Int?) {
        self.maxLength = maxLength
        self.frameLength = frameLength
    }

    /// What the buffered `bytes` say: a frame of a known length (whole, or still coming), none
    /// yet, or a refusal.
    enum Finding {
        case frame(length: Int)
        case notYet
        case refused(StreamTaskError)
    }

    func find(in bytes: ByteBuffer) -> Finding {
        let length: Int?
        do {
            length = try frameLength(bytes)
        } catch let error as StreamTaskError {
            return .refused(error)
        } catch {
            return .refused(StreamTaskError(.invalidFrame, "the framer refused the bytes: \(error)"))
        }
        guard let length else {
            if bytes.readableBytes >= maxLength {
                return .refused(
                    StreamTaskError(
                        .invalidFrame,
                        "no frame ends within the first \(maxLength) bytes (the framer's maximum); the bytes stay buffered"
                    ))
            }
            return .notYet
        }
        guard length > 0 else {
            return .refused(StreamTaskError(.invalidFrame, "the framer found a frame of \(length) bytes"))
        }
        guard length <= maxLength else {
            return .refused(
                StreamTaskError(
                    .invalidFrame,
                    "a frame of \(length) bytes is longer than the framer's maximum of \(maxLength); the bytes stay buffered"
                ))
        }
        return .frame(length: length)
    }
}
