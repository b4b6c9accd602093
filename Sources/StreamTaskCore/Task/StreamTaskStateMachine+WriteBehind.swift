//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskStateMachine {
    typealias WriteBehind = WriteBehindLedger<RoomWaiter>

    /// What the write ledger needs to know of the task, read from the machine's own state: the
    /// ledger keeps no copy of the connection, the task's life or the channel's writability.
    var writeBehindConditions: WriteBehind.Conditions {
        WriteBehind.Conditions(connectedAndRunning: isConnected && isRunning, channelWritable: writability == .writable)
    }

    /// Writers wait for room in the write ledger, whose bytes leave it only as their writes are
    /// confirmed: meanwhile every pass confirms what it hands over.
    var roomAwaited: Bool { writeBehind.waitingCount > 0 }

    /// Whether the loop owes a pass for the writers waiting for room: writes in flight went
    /// unconfirmed, and until they are confirmed their bytes stay in the ledger, so the room
    /// they wait for would never come.
    var roomWaitersNeedAPass: Bool { roomAwaited && unconfirmedWrites > 0 }

    /// What an async write of `count` bytes may do now (see ``WriteBehindLedger/admit(_:limit:_:)``).
    mutating func admitWriteBehind(_ count: Int, limit: Int) -> WriteBehind.Admission {
        writeBehind.admit(count, limit: limit, writeBehindConditions)
    }

    /// What the writes waiting for room may do now (see ``WriteBehindLedger/release(limit:_:)``).
    mutating func releaseWriteBehind(limit: Int) -> WriteBehind.Release {
        writeBehind.release(limit: limit, writeBehindConditions)
    }
}
