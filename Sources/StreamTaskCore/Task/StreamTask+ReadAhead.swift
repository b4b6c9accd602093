//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTask {
    /// The bytes of a read that the bytes lent by the event loop satisfy at once, taken on the
    /// caller's thread; `nil` when the read must go to the loop (see `ReadAhead`). Such a read
    /// would have completed at once on the loop with the same bytes, and not at the end of the
    /// stream: lending stops before the input ends.
    func readFromLentBytes(_ operation: StreamTaskStateMachine.Operation) -> ByteBuffer? {
        let taken = withShared { shared -> (bytes: ByteBuffer, resumesInput: Bool)? in
            guard shared.state == .running, shared.readAhead.isOpen else { return nil }
            switch operation {
            case .read(let minLength, let maxLength):
                return shared.readAhead.take(minLength: minLength, maxLength: maxLength)
            case .readThrough(let delimiter, let maxLength):
                return shared.readAhead.take(through: delimiter, maxLength: maxLength)
            case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
                return nil
            }
        }
        guard let taken else { return nil }
        if taken.resumesInput { driver.readAheadDrained() }
        return taken.bytes
    }
}
