import NIOCore
import StreamTaskRoutes

extension StreamTaskDriver {
    /// The connection is up: have the process's route monitor watch it, unless the session
    /// turned monitoring off or the connection is over loopback (its route never changes).
    /// Runs on the event loop.
    func startWatchingRoutes(_ channel: any Channel) {
        guard configuration.monitorsRoutes, routeRegistration == nil,
            let local = channel.localAddress?.ipAddress.flatMap(RouteAddress.init),
            let remote = channel.remoteAddress?.ipAddress.flatMap(RouteAddress.init),
            !local.isLoopback, !remote.isLoopback
        else { return }
        // A listener's task has no connect phase; see RouteWatch.announcesInitialDifference.
        let accepted = origin == .accepted
        routeRegistration = RouteMonitor.shared.register(
            local: local,
            remote: remote,
            announcesInitialDifference: !accepted,
            logger: configuration.logger
        ) { [weak self] event in
            self?.routeEventArrived(event)
        }
    }

    /// The task completed: the monitor forgets it (and stops if it was the last). On the loop.
    func stopWatchingRoutes() {
        guard let registration = routeRegistration else { return }
        routeRegistration = nil
        RouteMonitor.shared.unregister(registration)
    }

    /// From the monitor's thread: publish on the loop, while the connection is still the task's.
    private func routeEventArrived(_ event: RouteEvent) {
        onLoop {
            guard self.handler != nil, self.routeRegistration != nil else { return }
            self.configuration.logger.debug("route event", metadata: ["task": "\(self.taskIdentifier)", "event": "\(event)"])
            switch event {
            case .betterRouteDiscovered:
                self.owner?.publish(.betterRouteDiscovered)
            case .viabilityChanged(let isViable):
                self.owner?.publish(.viabilityChanged(isViable: isViable))
            }
        }
    }
}
