//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit

/// Idle connections: how much a listener's process grows per accepted connection, and how much
/// a process of client tasks grows per connected task.
enum Idle {
    /// Starts a listener, prints its port, keeps every accepted task until `count` are there,
    /// then reports the growth of the resident set per connection and waits for the clients to go.
    static func listener(count: Int) async throws {
        let session = benchSession()
        let listener = StreamListener(host: "127.0.0.1", port: 0, backlog: 4096, session: session)
        try await listener.start()
        try await Task.sleep(for: .milliseconds(300))
        let before = residentBytes()
        emit("PORT \(listener.port!)")
        var accepted: [StreamTask] = []
        accepted.reserveCapacity(count)
        for await task in listener.connections {
            accepted.append(task)
            if accepted.count == count { break }
        }
        try await Task.sleep(for: .seconds(1))
        let after = residentBytes()
        report("idle.listener.rss_before_bytes", Double(before))
        report("idle.listener.rss_after_bytes", Double(after))
        report("idle.listener.bytes_per_connection", Double(after - before) / Double(count))
        // Waits until the clients have gone: each read ends at the peer's close.
        for task in accepted {
            _ = try? await task.readData(ofMinLength: 1, maxLength: 1, timeout: 60)
            task.cancel()
        }
        await listener.shutdown(gracePeriod: 0)
    }

    /// Opens `count` client tasks to `port`, reports the growth per task, closes them.
    static func clients(port: Int, count: Int) async throws {
        let session = benchSession()
        try await Task.sleep(for: .milliseconds(300))
        let before = residentBytes()
        var tasks: [StreamTask] = []
        tasks.reserveCapacity(count)
        let batch = 500
        for first in stride(from: 0, to: count, by: batch) {
            let opened = (first..<min(count, first + batch)).map { _ in
                let task = session.streamTask(withHostName: "127.0.0.1", port: port)
                task.resume()
                return task
            }
            // An empty write completes once the task is connected (a read waits for a byte).
            for task in opened { try await task.write(Data(), timeout: 30) }
            tasks += opened
        }
        try await Task.sleep(for: .seconds(1))
        let after = residentBytes()
        report("idle.clients.bytes_per_connection", Double(after - before) / Double(count))
        for task in tasks { task.cancel() }
    }
}
