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
/// Events wait here in order. The mailbox is an input source (``RunLoopWakeSource``) of each
/// run loop and mode it is scheduled in; posting an event signals it and wakes those run loops,
/// and the first to perform it hands every waiting event over. So a run loop that is not
/// running keeps the events until it runs, and `run(mode:before:)` returns after a delivery,
/// as it does after a Darwin source's. The source stays in the run loops while events wait
/// and, when its owner says so (``keepRunLoopsRunning(_:)``: a stream until it is closed, a
/// service while it publishes or resolves), with none waiting: `RunLoop.run()` returns at once
/// from a run loop with neither sources nor timers, so a thread that schedules a stream, opens
/// it and calls `RunLoop.current.run()` hears from it until the stream is closed, as on Darwin.
/// The handler is held weakly: a released object gets no more events.
package final class RunLoopMailbox<Event: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every `var` is behind `lock`, except `handler`, which is set once
    // before the first post and called only where events are handed over, on the owner's run
    // loop. The source is added, removed and signalled under `lock`; CFRunLoop takes those from
    // any thread and calls nothing of the mailbox's while it holds its own locks.

    private struct Target {
        let runLoop: RunLoop
        var modes: [RunLoop.Mode]
    }

    private let lock = NIOLock()
    private var pending: [Event] = []
    /// Where events are delivered: the scheduled run loops and their modes.
    private var targets: [Target] = []
    /// Where the source is now: the targets while it is wanted (``wantsSource``), else none.
    private var attached: [Target] = []
    /// The source was signalled and has not handed the events over yet.
    private var handOverDue = false
    private var keepsRunLoopsRunning = false
    private var handler: (([Event]) -> Void)?
    /// Invalidated, and so taken out of every run loop, when the mailbox goes.
    private var source: RunLoopWakeSource!

    /// A mailbox scheduled in `runLoop` in the default mode, as `NetService` starts out, or
    /// (with `nil`) in none, as a stream starts out.
    package init(runLoop: RunLoop?) {
        targets = runLoop.map { [Target(runLoop: $0, modes: [.default])] } ?? []
        source = RunLoopWakeSource { [weak self] in self?.handOver() }
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
        lock.withLock {
            if let index = targets.firstIndex(where: { $0.runLoop === runLoop }) {
                if !targets[index].modes.contains(mode) { targets[index].modes.append(mode) }
            } else {
                targets.append(Target(runLoop: runLoop, modes: [mode]))
            }
            placeSourceLocked()
            guard !pending.isEmpty else { return }
            // Signal again: a signal given while the source was in no run loop woke none.
            handOverDue = false
            signalLocked()
        }
    }

    /// Removes `mode` of `runLoop` from where events are delivered.
    package func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        lock.withLock {
            guard let index = targets.firstIndex(where: { $0.runLoop === runLoop }) else { return }
            targets[index].modes.removeAll { $0 == mode }
            if targets[index].modes.isEmpty { targets.remove(at: index) }
            placeSourceLocked()
        }
    }

    /// Whether the run loops this mailbox is scheduled in are kept running while no event
    /// waits, as a Darwin run-loop source keeps them; `false` (the start) lets them run dry
    /// once the waiting events are handed over. Any thread.
    package func keepRunLoopsRunning(_ keep: Bool) {
        lock.withLock {
            keepsRunLoopsRunning = keep
            placeSourceLocked()
        }
    }

    /// Queues `event` for the handler and wakes the scheduled run loops. Any thread.
    package func post(_ event: Event) {
        lock.withLock {
            pending.append(event)
            placeSourceLocked()
            signalLocked()
        }
    }

    /// Whether the source belongs in the scheduled run loops now.
    private var wantsSource: Bool { keepsRunLoopsRunning || !pending.isEmpty }

    /// With the lock held: puts the source where it belongs, the scheduled run loops and modes
    /// while it is wanted and nowhere otherwise, adding and removing only what changed.
    private func placeSourceLocked() {
        let wanted = wantsSource ? targets : []
        for target in attached {
            let kept = wanted.first { $0.runLoop === target.runLoop }?.modes ?? []
            for mode in target.modes where !kept.contains(mode) {
                source.remove(from: target.runLoop, forMode: mode)
            }
        }
        for target in wanted {
            let present = attached.first { $0.runLoop === target.runLoop }?.modes ?? []
            for mode in target.modes where !present.contains(mode) {
                source.add(to: target.runLoop, forMode: mode)
            }
        }
        attached = wanted
    }

    /// With the lock held: signals the source and wakes the run loops it is in, unless a
    /// signal is on its way already or it is in none yet (``schedule(in:forMode:)`` signals).
    private func signalLocked() {
        guard !handOverDue, !attached.isEmpty else { return }
        handOverDue = true
        source.signal(waking: attached.map { ($0.runLoop, $0.modes) })
    }

    /// On a scheduled run loop, as the source is performed: gives every waiting event to the
    /// handler, and takes the source out of the run loops unless it is to keep them running.
    private func handOver() {
        let events = lock.withLock { () -> [Event] in
            handOverDue = false
            defer {
                pending = []
                placeSourceLocked()
            }
            return pending
        }
        guard !events.isEmpty, let handler else { return }
        handler(events)
    }
}
