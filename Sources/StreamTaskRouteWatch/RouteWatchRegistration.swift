//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CStreamTaskRouteWatch
import StreamTaskCore

/// Registers route watching with the core, once: called by the load-time constructor in
/// CStreamTaskRouteWatch, so that any program that links this module (StreamTaskKit does)
/// watches its tasks' routes, and one that links the core alone does not.
@_cdecl("stk_route_watch_register")
func registerRouteWatch() {
    ConnectionAttachmentRegistry.register { channel, driver in
        RouteWatchAttachment.watch(channel, for: driver)
    }
}

/// Whether the load-time constructor registered route watching (for tests and diagnostics).
package var routeWatchRegisteredAtLoad: Bool { stk_route_watch_registered() != 0 }
