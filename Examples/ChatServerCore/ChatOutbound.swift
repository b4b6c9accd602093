import Foundation
import NIOConcurrencyHelpers
import StreamTaskKit

/// The way out to one client: writes that never wait, and a count of the bytes not yet handed
/// to the kernel, so that a client that stops reading is dropped at the send-queue limit
/// instead of slowing whoever writes to it.
final class ChatOutbound: Sendable {
    let task: StreamTask
    let limit: Int
    private struct State {
        /// Bytes given to the task; what the task has not yet sent of them is the queue.
        var submitted: Int64 = 0
        var closed = false
    }
    private let state = NIOLockedValueBox(State())

    init(task: StreamTask, limit: Int) {
        self.task = task
        self.limit = limit
    }

    /// Bytes queued and not yet handed to the kernel. (The task counts what it sent on its
    /// event loop, so this is exact however busy the rest of the process is.)
    var pendingBytes: Int { Int(state.withLockedValue { $0.submitted } - task.countOfBytesSent) }

    /// Queues `data`. Returns `false` when that would pass the limit: nothing is queued and the
    /// caller drops the client. Writes to a closed outbound are ignored.
    func send(_ data: Data) -> Bool {
        let count = data.count
        let accepted = state.withLockedValue { state -> Bool? in
            if state.closed { return nil }
            if Int(state.submitted - task.countOfBytesSent) + count > limit { return false }
            state.submitted += Int64(count)
            return true
        }
        guard accepted == true else { return accepted == nil }
        task.write(data, timeout: 0) { _ in }
        return true
    }

    /// Stops sending: later ``send(_:)`` calls are ignored. Returns whether it was open.
    @discardableResult
    func markClosed() -> Bool {
        state.withLockedValue { state in
            defer { state.closed = true }
            return !state.closed
        }
    }

    /// Closes at once, dropping whatever is queued.
    func abort() {
        markClosed()
        task.cancel()
    }
}
