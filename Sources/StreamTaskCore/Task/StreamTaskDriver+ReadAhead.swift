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
    /// machine and the task allow it (see `ReadAhead`).
    func lendBuffer() {
        guard let owner, machine.mayLendBuffer else { return }
        // Nothing to add to a lending that is open already: skip the lock.
        if lending, machine.bufferedByteCount == 0 { return }
        let limit = configuration.inboundBufferLimit
        let lent = owner.withShared { shared in
            guard shared.readAhead.mayLend, shared.state == .running else { return false }
            shared.readAhead.lend(machine.lendBuffer(), limit: limit)
            return true
        }
        if lent { lending = true }
    }

    /// Takes the lent bytes back into the machine, ahead of anything buffered since, before an
    /// input that may need them; `arriving` when a submitted operation reached the loop. Input
    /// held back for them is the machine's to ask for again, at its next pass.
    func reclaimLentBytes(arriving: Bool) {
        guard arriving || lending else { return }
        lending = false
        if let lent = owner?.withShared({ $0.readAhead.reclaim(arriving: arriving) }) {
            machine.reclaim(lent)
        }
        if inputHeld {
            inputHeld = false
            machine.inputRequestWithdrawn()
        }
    }

    /// Whether a `requestInput` must wait because the lent bytes fill the input limit; if so,
    /// the read that takes them below it calls ``readAheadDrained()``.
    func holdsInputForLentBytes() -> Bool {
        guard lending, let owner else { return false }
        let buffered = machine.bufferedByteCount
        inputHeld = owner.withShared { $0.readAhead.holdsInput(buffered: buffered) }
        return inputHeld
    }

    /// A read off the loop took the lent bytes below the input limit: the input held back for
    /// them is asked for again (the machine's burst of reads, never carried out, ends).
    func readAheadDrained() {
        onLoop {
            guard self.inputHeld else { return }
            self.inputHeld = false
            self.carryOut(self.machine.receiveCompleted())
        }
    }
}

extension StreamTaskDriver {
    /// Bytes received and not read yet: the machine's, and those lent to reads.
    var unreadByteCount: Int {
        machine.bufferedByteCount + (owner?.withShared { $0.readAhead.count } ?? 0)
    }
}
