//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
