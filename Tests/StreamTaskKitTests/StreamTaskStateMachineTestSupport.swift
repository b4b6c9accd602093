//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

extension StreamTaskStateMachine {
    /// A machine whose connection is up, for tests that drive it as a value.
    static func connectedForTests(highWaterMark: Int = 1024) -> Self {
        var machine = startedForTests(highWaterMark: highWaterMark)
        _ = machine.connected()
        return machine
    }

    /// A machine whose task was started (resumed) and is not connected yet: a task's machine
    /// is connected only once its task started.
    static func startedForTests(highWaterMark: Int = 256 * 1024, outboundHighWaterMark: Int = 512 * 1024) -> Self {
        var machine = Self(highWaterMark: highWaterMark, outboundHighWaterMark: outboundHighWaterMark)
        let started = machine.start()
        #expect(started)
        return machine
    }
}

extension StreamTaskStateMachine {
    /// `bytes` arriving as the channel delivers them: as a read pass the machine asked for
    /// when it asked (bytes, then the pass's end, the actions of both), or by themselves when
    /// it did not (a TLS handler's leftovers).
    mutating func receivedPass(_ bytes: ByteBuffer) -> Actions {
        guard case .requested = inbound else { return received(bytes) }
        var actions = received(bytes)
        actions += receiveCompleted()
        return actions
    }
}
