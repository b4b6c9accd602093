//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A challenge's answer from a completion-handler delegate method, awaited.
enum ChallengeAnswer {
    /// Calls `ask` and returns the first answer it passes to its handler: a delegate that
    /// answers twice must not resume the wait twice.
    static func first(
        _ ask: (_ answer: @escaping @Sendable (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void) -> Void
    ) async -> (StreamSession.AuthChallengeDisposition, URLCredential?) {
        await withCheckedContinuation { continuation in
            let answered = NIOLockedValueBox(false)
            ask { disposition, credential in
                let first = answered.withLockedValue { answered -> Bool in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: (disposition, credential)) }
            }
        }
    }
}
