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
        var pending = 0
        var closed = false
    }
    private let state = NIOLockedValueBox(State())

    init(task: StreamTask, limit: Int) {
        self.task = task
        self.limit = limit
    }

    /// Bytes queued and not yet written.
    var pendingBytes: Int { state.withLockedValue { $0.pending } }

    /// Queues `data`. Returns `false` when that would pass the limit: nothing is queued and the
    /// caller drops the client. Writes to a closed outbound are ignored.
    func send(_ data: Data) -> Bool {
        let count = data.count
        let accepted = state.withLockedValue { state -> Bool? in
            if state.closed { return nil }
            if state.pending + count > limit { return false }
            state.pending += count
            return true
        }
        guard accepted == true else { return accepted == nil }
        task.write(data, timeout: 0) { [state] _ in
            state.withLockedValue { $0.pending -= count }
        }
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
