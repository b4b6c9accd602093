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

/// Carries events from other threads to the run loops an object is scheduled in, as
/// Foundation's run-loop sources do on Darwin: for `NetService` and `NetServiceBrowser` on
/// Linux, and for the Foundation streams of a captured stream task.
///
/// Events wait here in order; posting one adds a timer that fires at once to each scheduled run
/// loop (in each of its scheduled modes), and the first to fire hands every waiting event over.
/// A timer wakes a sleeping run loop, and a run loop that is not running keeps the events
/// until it runs. The handler is held weakly: a released object gets no more events.
package final class RunLoopMailbox<Event: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every `var` is behind `lock`, except `handler`, which is set once
    // before the first post and called only where events are handed over, on the owner's run
    // loop. The run loops are only given timers, which CFRunLoop accepts from any thread.

    private struct Target {
        let runLoop: RunLoop
        var modes: [RunLoop.Mode]
    }

    private let lock = NIOLock()
    private var pending: [Event] = []
    private var targets: [Target] = []
    private var wakeUpScheduled = false
    private var handler: (([Event]) -> Void)?

    /// A mailbox scheduled in `runLoop` in the default mode, as `NetService` starts out, or
    /// (with `nil`) in none, as a stream starts out.
    package init(runLoop: RunLoop?) {
        targets = runLoop.map { [Target(runLoop: $0, modes: [.default])] } ?? []
    }

    /// Sets the object that takes the events, held weakly, and how: `handle` gets the events
    /// that arrived since its last call, in order, on a thread whose run loop is scheduled,
    /// while that run loop runs in a scheduled mode. Call once, before anything is posted.
    package func deliver<Owner: AnyObject>(to owner: Owner, _ handle: @escaping (Owner, [Event]) -> Void) {
        handler = { [weak owner] events in
            if let owner { handle(owner, events) }
        }
    }

    /// Adds `mode` of `runLoop` to where events are delivered.
    package func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        let wake = lock.withLock { () -> Bool in
            if let index = targets.firstIndex(where: { $0.runLoop === runLoop }) {
                if !targets[index].modes.contains(mode) { targets[index].modes.append(mode) }
            } else {
                targets.append(Target(runLoop: runLoop, modes: [mode]))
            }
            return !pending.isEmpty
        }
        if wake { wakeUp() }
    }

    /// Removes `mode` of `runLoop` from where events are delivered.
    package func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        lock.withLock {
            guard let index = targets.firstIndex(where: { $0.runLoop === runLoop }) else { return }
            targets[index].modes.removeAll { $0 == mode }
            if targets[index].modes.isEmpty { targets.remove(at: index) }
        }
    }

    /// Queues `event` for the handler and wakes the scheduled run loops. Any thread.
    package func post(_ event: Event) {
        lock.withLock { pending.append(event) }
        wakeUp()
    }

    /// Adds one firing timer to each scheduled run loop, unless one is on its way already.
    private func wakeUp() {
        let targets = lock.withLock { () -> [Target] in
            guard !wakeUpScheduled, !pending.isEmpty else { return [] }
            wakeUpScheduled = !self.targets.isEmpty
            return self.targets
        }
        for target in targets {
            let timer = Timer(timeInterval: 0, repeats: false) { [self] _ in handOver() }
            for mode in target.modes { target.runLoop.add(timer, forMode: mode) }
        }
    }

    /// On a scheduled run loop: gives every waiting event to the handler.
    private func handOver() {
        let events = lock.withLock { () -> [Event] in
            wakeUpScheduled = false
            defer { pending = [] }
            return pending
        }
        guard !events.isEmpty, let handler else { return }
        handler(events)
    }
}
