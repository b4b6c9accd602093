//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// A feature that rides on a task's connection: it may put handlers in front of the task's own
/// when the connection is up, watch the connection once it is active, and hears when the task
/// completes.
///
/// This is the one seam through which features plug into a task without a stored field of
/// their own on it: the data tasks of StreamTaskHTTP carry their HTTP exchange this way, and
/// route monitoring watches a connection this way. Every method runs on the task's event loop;
/// each has a default that does nothing.
package protocol StreamTaskAttachment: AnyObject, Sendable {
    /// The connection to the host is up and the task's handler is about to join the pipeline:
    /// add what goes in front of it. A throw fails the task's connect with that error.
    func install(on channel: any Channel, driver: StreamTaskDriver) throws
    /// The channel is active and the task's operations start now.
    func connectionBecameActive(_ channel: any Channel, driver: StreamTaskDriver)
    /// The task's `suspend()` or `resume()` changed whether it is suspended (read the task's
    /// `state` for which): what times the peer (a data task's idle timer) stops or starts again.
    func suspensionChanged()
    /// The task completed (`nil` after an orderly close); the attachment is let go.
    func taskCompleted(_ error: StreamTaskError?)
}

extension StreamTaskAttachment {
    package func install(on channel: any Channel, driver: StreamTaskDriver) throws {}
    package func connectionBecameActive(_ channel: any Channel, driver: StreamTaskDriver) {}
    package func suspensionChanged() {}
    package func taskCompleted(_ error: StreamTaskError?) {}
}

extension StreamTaskDriver {
    /// Adds `attachment` to the task. On the loop.
    package func attach(_ attachment: any StreamTaskAttachment) {
        eventLoop.preconditionInEventLoop()
        attachments.append(attachment)
    }

    /// Lets `attachment` go without telling it the task completed. On the loop.
    package func detach(_ attachment: any StreamTaskAttachment) {
        eventLoop.preconditionInEventLoop()
        attachments.removeAll { $0 === attachment }
    }

    /// The task completed: every attachment hears it and is let go.
    func releaseAttachments(after error: StreamTaskError?) {
        let released = attachments
        attachments.removeAll()
        for attachment in released {
            attachment.taskCompleted(error)
        }
    }
}
