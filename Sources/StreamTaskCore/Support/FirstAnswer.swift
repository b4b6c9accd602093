//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers

/// Calls `ask` with a handler and returns the first answer passed to it: a delegate that calls
/// its completion handler twice must not resume the wait twice, and later answers are dropped.
package func firstAnswer<Answer: Sendable>(
    _ ask: (_ answer: @escaping @Sendable (Answer) -> Void) -> Void
) async -> Answer {
    await withCheckedContinuation { continuation in
        let answered = NIOLockedValueBox(false)
        ask { answer in
            let first = answered.withLockedValue { answered -> Bool in
                defer { answered = true }
                return !answered
            }
            if first { continuation.resume(returning: answer) }
        }
    }
}
