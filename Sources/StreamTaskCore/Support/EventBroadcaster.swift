//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers

/// Hands every event to every subscriber, replaying earlier events to late subscribers, so that
/// a subscriber never misses what happened between creating a task and iterating its events.
final class EventBroadcaster<Event: Sendable>: Sendable {
    private struct State {
        var history: [Event] = []
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextSubscriber = 0
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let historyLimit: Int

    init(historyLimit: Int = 256) {
        self.historyLimit = historyLimit
    }

    func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = state.withLockedValue { state in
            for event in state.history {
                continuation.yield(event)
            }
            guard !state.finished else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        if let id {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: id) }
            }
        } else {
            continuation.finish()
        }
        return stream
    }

    /// Delivers `event`; with `last`, ends every subscriber's sequence after it.
    func emit(_ event: Event, last: Bool = false) {
        let subscribers: [AsyncStream<Event>.Continuation] = state.withLockedValue { state in
            guard !state.finished else { return [] }
            if state.history.count < historyLimit {
                state.history.append(event)
            }
            state.finished = last
            let subscribers = Array(state.subscribers.values)
            if last { state.subscribers.removeAll() }
            return subscribers
        }
        for subscriber in subscribers {
            subscriber.yield(event)
            if last { subscriber.finish() }
        }
    }
}
