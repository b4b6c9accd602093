//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
extension NetService {
    /// Options for `publish(options:)`, with Foundation's values.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt

        /// An option set from its raw value.
        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// Fail with `NetService.ErrorCode.collisionError` when the name is taken, instead of
        /// publishing under another name (`Name (2)`, …).
        public static let noAutoRename = Options(rawValue: 1 << 0)

        /// Listen for TCP connections at the service's port (0 for any free one) on every IPv6
        /// and IPv4 address before registering, and hand each connection over with
        /// `netService(_:didAcceptConnectionWith:outputStream:)`, as on Darwin. A type that is
        /// not `_tcp` fails with `NetService.ErrorCode.badArgumentError`; a port that cannot be
        /// bound, with `NetService.ErrorCode.unknownError`.
        public static let listenForConnections = Options(rawValue: 1 << 1)
    }
}
#endif
