//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Identifies one operation queued on a task.
package struct OperationID: Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt64
    package var description: String { "op\(rawValue)" }
}
