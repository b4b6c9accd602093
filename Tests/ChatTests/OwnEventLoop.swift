//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOPosix
import StreamTaskKit

/// An event loop of a test's own, for a test that keeps its connections busy (a flood, a
/// fan-out). The suite runs its tests side by side, and on the two shared loops such a test's
/// work queued every other test's connections behind it for seconds: their reads and TLS
/// handshakes timed out (Benchmarks/FINDINGS.md, session 22).
struct OwnEventLoop: Sendable {
    private let group: MultiThreadedEventLoopGroup

    /// A session whose tasks run on this loop.
    func session(configuration: StreamSessionConfiguration = .init(proxy: .direct)) -> StreamSession {
        StreamSession(configuration: configuration, eventLoopGroup: group)
    }

    /// Runs `body` with a loop of its own, and stops the loop afterwards, whether `body`
    /// returned or threw.
    static func with<T>(_ body: (OwnEventLoop) async throws -> T) async throws -> T {
        let loop = OwnEventLoop(group: MultiThreadedEventLoopGroup(numberOfThreads: 1))
        do {
            let result = try await body(loop)
            try await loop.group.shutdownGracefully()
            return result
        } catch {
            try? await loop.group.shutdownGracefully()
            throw error
        }
    }
}
