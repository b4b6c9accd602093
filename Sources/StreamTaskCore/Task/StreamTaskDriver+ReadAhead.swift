//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskDriver {
    /// After the machine's actions: lets reads off the loop take from the buffer when the
    /// machine and the task allow it (see `ReadAhead`), completes the read parked there if the
    /// buffer satisfies it, or queues it if it falls short; and closes the lending once the
    /// machine may no longer lend, queueing the read parked.
    func lendBuffer() {
        guard owner != nil else { return }
        let decided = shared.withLockedValue { shared in
            shared.machine.lendAfterStep(taskRunning: shared.state == .running, midBurst: readBurst)
        }
        switch decided {
        case .nothing:
            break
        case .closed(let parked):
            if let parked { accept(parked) }
        case .opened(let outcome, let asksForInput):
            if asksForInput {
                // Nothing asks for input though the buffer has room (an input request made
                // while a read took bytes off the loop): a reader that waits parked, never
                // reaching the machine, would otherwise wait for input nobody asks for.
                step { $0.inputRoomMade() }
            }
            switch outcome {
            case .nothingParked:
                break
            case .satisfied(let read, let bytes):
                read.completion(.success((bytes, false)))
            case .fellShort(let read):
                accept(read)
            }
        }
    }

    /// Closes the lending before an input that may need the buffer's bytes where they are;
    /// `arriving` when a submitted operation reached the loop. A read parked there is queued
    /// first: it was issued before anything that comes next.
    func closeLending(arriving: Bool) {
        let parked = withMachine { $0.readAhead.close(arriving: arriving) }
        if let parked { accept(parked) }
    }

    /// Times the reads parked in the lending for `deadline`, unless they are timed for then
    /// or earlier already: an entry in the task's one deadline book, beside its operations'.
    func armParkTimer(at deadline: NIODeadline) {
        onLoop {
            if let armAt = self.deadlines.addParkedReads(at: deadline) { self.armDeadlineTimer(at: armAt) }
        }
    }

    /// The parked reads' deadline came: fails the read parked if its time is up, or times the
    /// parked reads again for its deadline.
    func parkedReadsTimedOut() {
        guard owner != nil else { return }
        let (expired, rearmAt) = withMachine { $0.readAhead.parkTimerFired(now: .now()) }
        if let expired {
            let error = Self.timeoutError(for: expired.operation, after: expired.timeout)
            expired.completion(.failure(error.at(host: host, port: port)))
        }
        if let rearmAt { armParkTimer(at: rearmAt) }
    }

    /// A read off the loop took bytes that made room for input nobody asks for: the loop
    /// asks for it.
    func inputRoomMade() {
        onLoop { self.step { $0.inputRoomMade() } }
    }
}

extension StreamTaskDriver {
    /// Whether reads off the loop may take buffered bytes now, for tests and diagnostics.
    var lending: Bool { withMachine { $0.readAhead.isOpen } }

    /// Bytes received and not read yet.
    var unreadByteCount: Int {
        withMachine { $0.bufferedByteCount }
    }
}
