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

/// A captured stream that tells its delegate of events: whether an event is still due when
/// its turn comes on the run loop.
protocol CapturedStreamEventSource: Stream {
    /// Whether `event` still holds (bytes still held, the stream still open…): an event that
    /// no longer does is not delivered.
    func isStillDue(_ event: Stream.Event) -> Bool
}

/// The run-loop events of a captured stream, delivered as Darwin's socket streams deliver them:
/// to the stream's `delegate`, on the run loops the stream is scheduled in (none until
/// `schedule(in:forMode:)`), while they run in a scheduled mode.
///
/// An event posted again before its first posting was delivered is delivered once, so however
/// often bytes arrive, at most one of each kind waits. Events wait for a run loop to be
/// scheduled, and each is checked when its turn comes: one that no longer holds (the bytes
/// were read meanwhile, the stream was closed) is dropped.
///
/// As a Darwin stream's run-loop source does, a stream keeps the run loops it is scheduled in
/// running, even with no event due, until it is closed or released: a thread may schedule it,
/// open it and call `RunLoop.current.run()`.
final class CapturedStreamEvents: Sendable {
    private let mailbox = RunLoopMailbox<Stream.Event>(runLoop: nil)
    /// Events posted and not yet delivered.
    private let waiting = NIOLockedValueBox<Stream.Event>([])

    init() {
        mailbox.keepRunLoopsRunning(true)
    }

    /// Delivers to `stream`'s delegate from now on; `stream` is held weakly.
    func deliver<Source: CapturedStreamEventSource>(to stream: Source) {
        mailbox.deliver(to: stream) { [waiting] stream, events in
            for event in events {
                waiting.withLockedValue { _ = $0.remove(event) }
                guard stream.isStillDue(event) else { continue }
                stream.delegate?.stream(stream, handle: event)
            }
        }
    }

    /// Queues `event`, unless one like it waits already. Any thread.
    func post(_ event: Stream.Event) {
        let isNew = waiting.withLockedValue { $0.insert(event).inserted }
        if isNew { mailbox.post(event) }
    }

    func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.schedule(in: runLoop, forMode: mode)
    }

    func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.remove(from: runLoop, forMode: mode)
    }

    /// The stream is closed or released: its run loops may run dry.
    func streamEnded() {
        mailbox.keepRunLoopsRunning(false)
    }
}
