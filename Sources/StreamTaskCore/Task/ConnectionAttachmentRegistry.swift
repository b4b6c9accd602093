//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers
import NIOCore

/// Features that other modules of the package plug into every task's connection as it comes
/// up, without the core depending on them: route watching registers here from the
/// StreamTaskRouteWatch module, which StreamTaskKit links in, as the program loads.
package enum ConnectionAttachmentRegistry {
    /// Makes the attachment for a connection that just became active, or `nil` when the
    /// feature has nothing to do for it. Called on the task's event loop.
    package typealias Factory =
        @Sendable (_ channel: any Channel, _ driver: StreamTaskDriver) -> (
            any StreamTaskAttachment
        )?

    private static let factories = NIOLockedValueBox<[Factory]>([])

    /// Adds `factory`; every connection that comes up from now on is offered to it.
    package static func register(_ factory: @escaping Factory) {
        factories.withLockedValue { $0.append(factory) }
    }

    /// How many features are registered.
    package static var count: Int { factories.withLockedValue { $0.count } }

    /// Offers `channel`, just active, to every feature registered, and attaches what they make.
    static func attachFeatures(to channel: any Channel, of driver: StreamTaskDriver) {
        for makeAttachment in factories.withLockedValue({ $0 }) {
            if let attachment = makeAttachment(channel, driver) { driver.attach(attachment) }
        }
    }
}
