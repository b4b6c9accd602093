//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StringProtocol {
    /// What is between the brackets when the text is wrapped in them, as an IPv6 address is in
    /// a URL (`[::1]`); `nil` otherwise.
    package var insideBrackets: SubSequence? {
        hasPrefix("[") && hasSuffix("]") ? dropFirst().dropLast() : nil
    }
}
