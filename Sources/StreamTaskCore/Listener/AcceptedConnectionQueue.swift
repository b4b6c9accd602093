import NIOConcurrencyHelpers
import NIOCore

/// The accepted connections that wait for the consumer of ``StreamListener/connections``: a
/// buffer of at most `capacity`, so that the listener stops accepting (``AcceptLimitHandler``
/// asks ``isFull``) while the consumer takes nothing, and starts again when it takes one.
///
/// One consumer at a time, as ``StreamListener/connections`` documents.
final class AcceptedConnectionQueue: Sendable {
    private struct State {
        var buffer = CircularBuffer<StreamTask>()
        /// The consumer, waiting for the next connection.
        var waiter: CheckedContinuation<StreamTask?, Never>?
        /// Set when the waiting consumer's task is cancelled before it could wait.
        var cancelled = false
        var finished = false
        /// Called when a full buffer gets room again.
        var onSpace: (@Sendable () -> Void)?
    }

    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Whether the buffer holds `capacity` connections: the listener accepts no more for now.
    var isFull: Bool {
        state.withLockedValue { $0.buffer.count >= capacity }
    }

    /// Sets what is called (on whatever thread took a connection) when a full buffer gets room.
    func setSpaceHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.onSpace = handler }
    }

    /// Hands `task` to the waiting consumer, or keeps it for the next one. Returns `false`
    /// once ``finish()`` was called: nobody will take it.
    func enqueue(_ task: StreamTask) -> Bool {
        let (accepted, waiter) = state.withLockedValue { state -> (Bool, CheckedContinuation<StreamTask?, Never>?) in
            guard !state.finished else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.buffer.append(task)
            return (true, nil)
        }
        waiter?.resume(returning: task)
        return accepted
    }

    /// Ends the sequence: the consumer gets what is buffered, then `nil`.
    func finish() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<StreamTask?, Never>? in
            state.finished = true
            state.onSpace = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next connection, waiting for one; `nil` once finished and empty, or when the
    /// calling task is cancelled.
    func next() async -> StreamTask? {
        state.withLockedValue { $0.cancelled = false }
        return await withTaskCancellationHandler {
            if let task = take() { return task }
            return await withCheckedContinuation { continuation in
                let resumeNow = state.withLockedValue { state -> Bool in
                    guard state.buffer.isEmpty else { return true }
                    if !state.finished && !state.cancelled { state.waiter = continuation }
                    return state.waiter == nil
                }
                // A connection that arrived between the two looks is taken now.
                if resumeNow { continuation.resume(returning: take()) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<StreamTask?, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The oldest buffered connection, if any; tells the listener when that makes room.
    private func take() -> StreamTask? {
        let (task, onSpace) = state.withLockedValue { state -> (StreamTask?, (@Sendable () -> Void)?) in
            let wasFull = state.buffer.count >= capacity
            guard let task = state.buffer.popFirst() else { return (nil, nil) }
            return (task, wasFull ? state.onSpace : nil)
        }
        onSpace?()
        return task
    }
}
