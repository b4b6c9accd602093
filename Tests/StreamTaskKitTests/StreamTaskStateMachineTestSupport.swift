//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

@testable import StreamTaskCore

extension StreamTaskStateMachine {
    /// A machine whose connection is up, for tests that drive it as a value.
    static func connectedForTests(highWaterMark: Int = 1024) -> Self {
        var machine = Self(highWaterMark: highWaterMark)
        _ = machine.connected()
        return machine
    }
}
