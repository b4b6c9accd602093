//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskDriver {
    /// The façade's `suspend()` or `resume()` changed whether a started task is suspended:
    /// brings the machine in line with the façade's state.
    ///
    /// The state is read here, on the loop, rather than passed along: calls from several
    /// threads may reach the loop in another order than they took the façade's lock, and the
    /// machine must end as the last of them left the state. A cancelled or completed task has
    /// nothing left to hold. Attachments hear of every change (see
    /// ``StreamTaskAttachment/suspensionChanged()``).
    func suspensionChanged() {
        onLoop {
            guard self.owner != nil else { return }
            let wanted: StreamTaskStateMachine.Activity? = self.shared.withLockedValue { shared in
                switch shared.state {
                case .running: .running
                case .suspended: .suspended
                case .canceling, .completed: nil
                }
            }
            guard let wanted else { return }
            for attachment in self.attachments { attachment.suspensionChanged() }
            self.step { machine in
                guard wanted != machine.activity else { return [] }
                return wanted == .suspended ? machine.suspend() : machine.resume()
            }
        }
    }
}
