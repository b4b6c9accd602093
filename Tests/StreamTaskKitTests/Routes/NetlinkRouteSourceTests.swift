//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if os(Linux)
import NIOConcurrencyHelpers
import Testing

@testable import StreamTaskCore
@testable import StreamTaskRoutes

/// The Linux source against the real kernel, without root (NETLINK_ROUTE needs no privilege):
/// it answers a registration with a first look, and its thread ends and closes its sockets
/// when the last registration leaves.
@Suite struct NetlinkRouteSourceTests {
    @Test func looksAtANewConnectionAndClosesWhenTheLastLeaves() async throws {
        let sources = NIOLockedValueBox<[NetlinkRouteSource]>([])
        let monitor = RouteMonitor(makeSource: { monitor in
            let source = try NetlinkRouteSource(monitor: monitor)
            sources.withLockedValue { $0.append(source) }
            return source
        })
        let heard = Recorder<RouteEvent>()
        // Loopback: its address, interface and route are there on every Linux machine, so the
        // first look finds the connection viable on its own route and says nothing.
        let loopback = try #require(RouteAddress("127.0.0.1"))
        let id = try #require(
            monitor.register(
                local: loopback, remote: loopback, announcesInitialDifference: true,
                logger: StreamSession.Configuration().logger, deliver: heard.append))
        let source = try #require(sources.withLockedValue { $0.first })
        #expect(await eventually { monitor.evaluatedCount == 1 }, "the kernel's facts never arrived")
        #expect(!source.isClosed)

        monitor.unregister(id)
        #expect(!monitor.isRunning)
        #expect(await eventually { source.isClosed }, "the monitor thread did not end")
        // Only now, with the thread ended, could nothing more be on its way.
        #expect(heard.values.isEmpty)
    }
}
#endif
