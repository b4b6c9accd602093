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
@testable import StreamTaskRouteWatch

/// Route watching is plugged into the core from outside it: linking StreamTaskRouteWatch (as
/// StreamTaskKit does) registers it as the program loads, once.
struct RouteWatchRegistrationTests {
    @Test func linkingTheModuleRegistersRouteWatchingOnceAsTheProgramLoads() {
        #expect(routeWatchRegisteredAtLoad)
        #expect(ConnectionAttachmentRegistry.count == 1)
    }
}
