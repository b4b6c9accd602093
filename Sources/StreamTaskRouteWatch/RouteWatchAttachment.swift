//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import StreamTaskCore
import StreamTaskRoutes

/// Has the process's route monitor watch one task's connection while it is open, and turns
/// what the monitor sees into the task's better-route and viability events.
final class RouteWatchAttachment: StreamTaskAttachment, @unchecked Sendable {
    // @unchecked Sendable: `registration` is touched only on the task's event loop.

    private weak var driver: StreamTaskDriver?
    private var registration: Int?

    private init(driver: StreamTaskDriver) {
        self.driver = driver
    }

    /// Starts watching `channel` for `driver`, unless the session turned monitoring off or the
    /// connection is over loopback (its route never changes). On the loop.
    static func watch(_ channel: any Channel, for driver: StreamTaskDriver) -> RouteWatchAttachment? {
        guard driver.configuration.monitorsRoutes,
            let local = channel.localAddress?.ipAddress.flatMap(RouteAddress.init),
            let remote = channel.remoteAddress?.ipAddress.flatMap(RouteAddress.init),
            !local.isLoopback, !remote.isLoopback
        else { return nil }
        let watch = RouteWatchAttachment(driver: driver)
        // A listener's task has no connect phase; see RouteWatch.announcesInitialDifference.
        watch.registration = RouteMonitor.shared.register(
            local: local,
            remote: remote,
            announcesInitialDifference: driver.origin != .accepted,
            logger: driver.configuration.logger
        ) { [weak watch] event in
            watch?.eventArrived(event)
        }
        return watch.registration == nil ? nil : watch
    }

    /// The task completed: the monitor forgets it (and stops if it was the last).
    func taskCompleted(_ error: StreamTaskError?) {
        guard let registration else { return }
        self.registration = nil
        RouteMonitor.shared.unregister(registration)
    }

    /// From the monitor's thread: publish on the loop, while the connection is still the task's.
    private func eventArrived(_ event: RouteEvent) {
        guard let driver else { return }
        driver.onLoop {
            guard self.registration != nil, driver.hasChannel else { return }
            driver.configuration.logger.debug(
                "route event", metadata: ["task": "\(driver.taskIdentifier)", "event": "\(event)"])
            switch event {
            case .betterRouteDiscovered:
                driver.publish(.betterRouteDiscovered)
            case .viabilityChanged(let isViable):
                driver.publish(.viabilityChanged(isViable: isViable))
            }
        }
    }
}
