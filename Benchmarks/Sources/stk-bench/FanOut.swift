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
import StreamTaskKit

/// Fan-out: one writer sends each 64-byte message to every one of `connections` connections in
/// turn, `messages` times; a reader on each accepted end counts what arrives. This is a chat
/// server's shape: many small writes, each to another connection.
enum FanOut {
    static let size = 64

    /// What one run measured.
    struct Run {
        /// Messages delivered (all connections) per second.
        var perSecond: Double
        /// This process's CPU time (both ends) per message, in microseconds.
        var cpuMicroseconds: Double
    }

    /// The library: `write(_:timeout:)` of a 64-byte `ByteBuffer`, and
    /// `readData(ofMinLength: 1, maxLength: 65536, …)` on each accepted task.
    static func library(
        connections: Int, messages: Int, session: StreamSession, placement: Placement
    ) async throws -> Run {
        var pairs: [LibraryPair] = []
        func closeAll() async { for pair in pairs { await pair.close() } }
        do {
            for _ in 0..<connections { pairs.append(try await LibraryPair.open(session: session)) }
            let run = try await deliver(messages: messages, pairs: pairs, placement: placement)
            await closeAll()
            return run
        } catch {
            await closeAll()
            throw error
        }
    }

    private static func deliver(messages: Int, pairs: [LibraryPair], placement: Placement) async throws -> Run {
        let expected = messages * size
        return try await measure(count: pairs.count * messages) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for pair in pairs {
                    group.addTask(executorPreference: placement.executor(for: pair.server)) {
                        try await pair.server.receive(expected)
                    }
                }
                group.addTask(executorPreference: placement.executor(for: pairs[0].client)) {
                    let message = ByteBuffer(repeating: 0x6d, count: size)
                    for _ in 0..<messages {
                        for pair in pairs { try await pair.client.write(message, timeout: operationTimeout) }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// `NIOAsyncChannel`: the same, with its outbound writer and inbound stream.
    static func asyncChannel(connections: Int, messages: Int, placement: AsyncChannelPlacement) async throws -> Run {
        try await AsyncChannelPairs.with(count: connections) { pairs in
            let expected = messages * size
            return try await measure(count: connections * messages) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (_, server) in pairs {
                        group.addTask(executorPreference: placement.executor(for: server)) {
                            try await server.receive(expected)
                        }
                    }
                    group.addTask(executorPreference: placement.executor(for: pairs[0].client)) {
                        let message = ByteBuffer(repeating: 0x6d, count: size)
                        for _ in 0..<messages {
                            for (client, _) in pairs { try await client.outbound.write(message) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// Runs `body`, which delivers `count` messages; returns the rate and the CPU per message.
    private static func measure(count: Int, _ body: () async throws -> Void) async throws -> Run {
        let cpuBefore = processCPUSeconds()
        let start = now()
        try await body()
        let seconds = Double(now() - start) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        return Run(perSecond: Double(count) / seconds, cpuMicroseconds: cpu / Double(count) * 1e6)
    }
}

/// This process's CPU time so far (user and system, every thread), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
