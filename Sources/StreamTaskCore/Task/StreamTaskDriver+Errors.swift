//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension StreamTaskDriver {
    static let abandonedError = StreamTaskError(
        .cancelled,
        "the Swift task waiting for this operation was cancelled; unread bytes stay buffered"
    )

    static func timeoutError(
        for operation: StreamTaskStateMachine.Operation, after seconds: TimeInterval
    )
        -> StreamTaskError
    {
        switch operation {
        case .read, .readThrough, .readFrame:
            return StreamTaskError(
                .timedOut,
                "the read timed out after \(seconds) s; no bytes were lost, the next read gets them"
            )
        case .write:
            return StreamTaskError(.timedOut, "the write timed out after \(seconds) s")
        case .startTLS, .stopTLS:
            return StreamTaskError(.timedOut, "the TLS transition timed out after \(seconds) s")
        case .captureStreams:
            return StreamTaskError(.timedOut, "capturing the streams timed out after \(seconds) s")
        case .closeRead, .closeWrite:
            return StreamTaskError(.timedOut, "closing timed out after \(seconds) s")
        }
    }
}
