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
    /// After the machine's actions: lends what it buffered to reads off the loop, when the
    /// machine and the task allow it (see `ReadAhead`) and no burst of channel reads is under
    /// way, and completes the read parked there if the bytes satisfy it, or queues it if they
    /// fall short.
    func lendBuffer() {
        guard owner != nil else { return }
        let limit = configuration.inboundBufferLimit
        let (lendingStays, outcome, flowing) = shared.withLockedValue {
            shared -> (Bool, ReadAhead.LendOutcome?, Bool) in
            // The lending is open only while the machine could lend: whatever closed it (the
            // input ended, the task was suspended or handed over) takes the bytes back, and the
            // read parked, which the machine then decides.
            guard shared.machine.mayLendBuffer else { return (false, nil, false) }
            // Nothing to add to a lending that is open already. Mid-burst, the bytes wait for
            // the rest of it.
            if readBurst || (lending && shared.machine.bufferedByteCount == 0) { return (true, nil, false) }
            guard shared.readAhead.mayLend, shared.state == .running else { return (true, nil, false) }
            let outcome = shared.readAhead.lend(shared.machine.lendBuffer(), limit: limit)
            if case .flowing = shared.machine.inbound { return (true, outcome, true) }
            return (true, outcome, false)
        }
        if !lendingStays, lending { return reclaimLentBytes(arriving: false) }
        guard let outcome else { return }
        lending = true
        if flowing {
            // Nothing asks for input: the machine stopped because its buffer was full, or an
            // input held for lent bytes was withdrawn when they were taken back and no pass
            // followed (an operation refused at once). From here, lent bytes count through
            // `holdsInputForLentBytes`, which the read that takes them below the limit undoes.
            // Without this, a reader that waits parked (never reaching the machine) would wait
            // for input nobody asks for.
            step { $0.receiveCompleted() }
        }
        switch outcome {
        case .nothingParked:
            break
        case .satisfied(let read, let bytes, let resumesInput):
            read.completion(.success((bytes, false)))
            if resumesInput { readAheadDrained() }
        case .fellShort(let read, let lent):
            takeBack(lent: lent, parked: read)
        }
    }

    /// Takes the lent bytes back into the machine, ahead of anything buffered since, before an
    /// input that may need them; `arriving` when a submitted operation reached the loop. Input
    /// held back for them is the machine's to ask for again, at its next pass. A read parked in
    /// the lending is queued first: it was issued before anything that comes next.
    func reclaimLentBytes(arriving: Bool) {
        guard arriving || lending else { return }
        let (lent, parked) = owner?.withShared({ $0.readAhead.reclaim(arriving: arriving) }) ?? (ByteQueue(), nil)
        takeBack(lent: lent, parked: parked)
    }

    /// The lending is closed: `lent` goes back to the machine and `parked` into its queue.
    private func takeBack(lent: ByteQueue, parked: OperationRequest?) {
        lending = false
        let withdrawsInput = inputHeld
        inputHeld = false
        withMachine { machine in
            machine.reclaim(lent)
            if withdrawsInput { machine.inputRequestWithdrawn() }
        }
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
        guard let owner else { return }
        let (expired, rearmAt) = owner.withShared { $0.readAhead.parkTimerFired(now: .now()) }
        if let expired {
            let error = Self.timeoutError(for: expired.operation, after: expired.timeout)
            expired.completion(.failure(error.at(host: host, port: port)))
        }
        if let rearmAt { armParkTimer(at: rearmAt) }
    }

    /// Whether a `requestInput` must wait because the lent bytes fill the input limit; if so,
    /// the read that takes them below it calls ``readAheadDrained()``.
    func holdsInputForLentBytes() -> Bool {
        guard lending, owner != nil else { return false }
        inputHeld = shared.withLockedValue { $0.readAhead.holdsInput(buffered: $0.machine.bufferedByteCount) }
        return inputHeld
    }

    /// A read off the loop took the lent bytes below the input limit: the input held back for
    /// them is asked for again (the machine's burst of reads, never carried out, ends).
    func readAheadDrained() {
        onLoop {
            guard self.inputHeld else { return }
            self.inputHeld = false
            self.step { $0.receiveCompleted() }
        }
    }
}

extension StreamTaskDriver {
    /// Bytes received and not read yet: the machine's, and those lent to reads.
    var unreadByteCount: Int {
        shared.withLockedValue { $0.machine.bufferedByteCount + $0.readAhead.count }
    }
}
