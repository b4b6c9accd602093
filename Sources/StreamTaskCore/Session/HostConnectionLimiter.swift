//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Counts open connections per host and queues the tasks over the limit, first come first served.
///
/// A plain value: the session keeps it under its lock and acts on what it returns. It records
/// which tasks hold a slot, so a task that completes gives back exactly what it had: its slot,
/// its place in the queue, or nothing.
struct HostConnectionLimiter {
    let limit: Int
    private var holders: [Int: String] = [:]
    private var open: [String: Int] = [:]
    private var waiting: [String: CircularBuffer<Int>] = [:]

    init(limit: Int) {
        self.limit = Swift.max(1, limit)
    }

    /// Whether task `id` may connect to `host` now; if not, it waits its turn.
    mutating func acquire(host: String, task id: Int) -> Bool {
        let key = host.lowercased()
        if open[key, default: 0] < limit && waiting[key] == nil {
            open[key, default: 0] += 1
            holders[id] = key
            return true
        }
        waiting[key, default: []].append(id)
        return false
    }

    /// Task `id` completed. Returns the waiting task that now holds the slot it freed, if any.
    mutating func finished(task id: Int) -> Int? {
        guard let key = holders.removeValue(forKey: id) else {
            withdraw(task: id)
            return nil
        }
        if var queue = waiting[key], let next = queue.popFirst() {
            waiting[key] = queue.isEmpty ? nil : queue
            holders[next] = key
            return next
        }
        let count = open[key, default: 1] - 1
        open[key] = count > 0 ? count : nil
        return nil
    }

    private mutating func withdraw(task id: Int) {
        for (key, var queue) in waiting {
            guard let index = queue.firstIndex(of: id) else { continue }
            queue.remove(at: index)
            waiting[key] = queue.isEmpty ? nil : queue
            return
        }
    }

    func openCount(host: String) -> Int { open[host.lowercased(), default: 0] }
    func waitingCount(host: String) -> Int { waiting[host.lowercased()]?.count ?? 0 }
}
