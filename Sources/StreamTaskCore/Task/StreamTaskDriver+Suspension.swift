//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskDriver {
    /// The façade's `suspend()` or `resume()` changed whether a started task is suspended (the
    /// machine changed with it, under the task's lock): the attachments hear of it, on the
    /// loop (see ``StreamTaskAttachment/suspensionChanged()``). A cancelled or completed task
    /// has nothing left to tell them.
    func suspensionChanged() {
        onLoop {
            guard self.owner != nil else { return }
            let ended = self.withMachine { $0.hasEnded }
            guard !ended else { return }
            for attachment in self.attachments { attachment.suspensionChanged() }
        }
    }
}
