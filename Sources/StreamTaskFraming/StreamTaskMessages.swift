//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

/// The messages a task's stream brings, framed by a ``MessageFramer``: see
/// `StreamTask.messages(framedBy:timeout:)`.
public struct StreamTaskMessages<Framer: MessageFramer>: AsyncSequence, Sendable {
    public typealias Element = Framer.Message

    let task: StreamTask
    let framer: Framer
    let timeout: TimeInterval

    public struct AsyncIterator: AsyncIteratorProtocol {
        let task: StreamTask
        let framer: Framer
        let timeout: TimeInterval
        var finished = false

        public mutating func next() async throws -> Framer.Message? {
            guard !finished else { return nil }
            do {
                guard let message = try await task.readMessage(framedBy: framer, timeout: timeout) else {
                    finished = true
                    return nil
                }
                return message
            } catch {
                finished = true
                throw error
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(task: task, framer: framer, timeout: timeout)
    }
}
