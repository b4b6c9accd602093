import Foundation
import NIOConcurrencyHelpers
import StreamTaskKit

/// The way out to one client: writes that never wait, and a count of the bytes not yet handed
/// to the kernel, so that a client that stops reading is dropped at the send-queue limit
/// instead of slowing whoever writes to it.
///
/// At most one write is with the task at a time; lines sent meanwhile are gathered and go out
/// together in the next write. Under load that turns many small writes (each a hop to the
/// event loop, a system call and a completion on the delegate queue) into a few larger ones:
/// the chat fan-out benchmark (BENCHMARKS.md) spent most of its CPU time on those per-line costs.
final class ChatOutbound: Sendable {
    let task: StreamTask
    let limit: Int
    private struct State {
        /// Bytes given to the task; what the task has not yet sent of them is the queue.
        var submitted: Int64 = 0
        var closed = false
        /// Whether a write is with the task now.
        var writing = false
        /// Lines sent while a write was with the task, in order; they go out when it completes.
        var gathered = Data()
    }
    private let state = NIOLockedValueBox(State())

    init(task: StreamTask, limit: Int) {
        self.task = task
        self.limit = limit
    }

    /// Bytes queued and not yet handed to the kernel. (The task counts what it sent on its
    /// event loop, so this is exact however busy the rest of the process is.)
    var pendingBytes: Int { Int(state.withLockedValue { $0.submitted } - task.countOfBytesSent) }

    /// What ``enqueue(_:)`` did.
    enum Enqueued {
        /// Nothing was queued: the limit would be passed, and the caller drops the client.
        case overLimit
        /// Queued behind lines that a write or a ``flush()`` will take.
        case queued
        /// Queued, and nothing takes it until ``flush()`` is called.
        case needsFlush
    }

    /// Queues `data` without writing it, so that several lines can go out in one write; see
    /// ``Enqueued`` for what to do next. Writes to a closed outbound are ignored.
    func enqueue(_ data: Data) -> Enqueued {
        let count = data.count
        let sent = task.countOfBytesSent
        return state.withLockedValue { state -> Enqueued in
            if state.closed { return .queued }
            if Int(state.submitted - sent) + count > limit { return .overLimit }
            state.submitted += Int64(count)
            let first = state.gathered.isEmpty
            state.gathered.append(data)
            return first && !state.writing ? .needsFlush : .queued
        }
    }

    /// Writes what is queued, unless a write is with the task already (what it gathers follows
    /// when that write completes).
    func flush() {
        let batch = state.withLockedValue { state -> Data? in
            guard !state.closed, !state.writing, !state.gathered.isEmpty else { return nil }
            state.writing = true
            defer { state.gathered = Data() }
            return state.gathered
        }
        if let batch { write(batch) }
    }

    /// Queues `data` and writes it (or gathers it behind the write under way). Returns `false`
    /// when that would pass the limit: nothing is queued and the caller drops the client.
    func send(_ data: Data) -> Bool {
        switch enqueue(data) {
        case .overLimit: return false
        case .needsFlush: flush()
        case .queued: break
        }
        return true
    }

    /// Hands `data` to the task; when it is written, the lines gathered meanwhile follow.
    private func write(_ data: Data) {
        task.write(data, timeout: 0) { error in
            let next = self.state.withLockedValue { state -> Data? in
                guard error == nil, !state.closed, !state.gathered.isEmpty else {
                    state.writing = false
                    return nil
                }
                defer { state.gathered = Data() }
                return state.gathered
            }
            if let next { self.write(next) }
        }
    }

    /// Waits (at most `timeout`) until no write is with the task and nothing is gathered, so
    /// that a barrier queued next on the task, such as STARTTLS, comes after every reply sent
    /// before it. Returns whether it got there.
    func waitUntilIdle(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while state.withLockedValue({ $0.writing || (!$0.closed && !$0.gathered.isEmpty) }) {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Stops sending: later ``send(_:)`` calls are ignored. Returns whether it was open.
    @discardableResult
    func markClosed() -> Bool {
        takeUnsentAndClose() != nil
    }

    /// Stops sending, and returns the lines gathered but not yet handed to the task (`nil` when
    /// it was closed already). Written before a last line, they keep their order: the write
    /// with the task, if any, goes first.
    func takeUnsentAndClose() -> Data? {
        state.withLockedValue { state in
            if state.closed { return nil }
            state.closed = true
            defer { state.gathered = Data() }
            return state.gathered
        }
    }

    /// Closes at once, dropping whatever is queued.
    func abort() {
        markClosed()
        task.cancel()
    }
}
