//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the system says now, as far as one connection cares: the interfaces and their state,
/// which interfaces hold which addresses, and the route the system would pick to the peer.
struct RouteFacts: Equatable, Sendable {
    /// Interface index → up (administratively up and with a carrier). A missing index is gone.
    var interfaces: [UInt32: Bool]
    /// Address → the indexes of the interfaces that hold it.
    var addresses: [RouteAddress: [UInt32]]
    /// The route the system would choose to the peer now; nil when it has none.
    var choice: RouteChoice?
}

/// A route as the kernel picks it: the interface out, and the source address it would use
/// (nil where the platform does not say, as with Network.framework's path monitor).
struct RouteChoice: Hashable, Sendable {
    var interface: UInt32
    var source: RouteAddress?
}

/// Route and viability events for a task, before they become `StreamTaskEvent`s.
package enum RouteEvent: Equatable, Sendable {
    case betterRouteDiscovered
    case viabilityChanged(isViable: Bool)
}

/// The decision for one connection, as a plain value: given the previous state and fresh facts,
/// which events to emit. No sockets, no clock: the monitor feeds it, the tests too.
///
/// - The connection's route is its local address and the interface it leaves by (the interface
///   the system picks from that address, else the one holding the address).
/// - Viable: the local address is on an interface that is up, and so is the connection's
///   interface. Viability events fire on each change (a connection starts viable).
/// - Better route: while viable, the system's choice to the peer has another interface or
///   source address than the connection. Each distinct choice is announced once; once the
///   choice is the connection's own again, a later better route is news again.
struct RouteWatch: Equatable, Sendable {
    let local: RouteAddress
    /// Whether a choice that already differs at the first look counts as news. A client
    /// connection was routed by the kernel moments ago, so a difference means the routes
    /// changed meanwhile: announce it. An accepted connection keeps the address the client
    /// dialled, which need not be the one the server would pick: not news.
    let announcesInitialDifference: Bool
    private(set) var interface: UInt32?
    private(set) var isViable = true
    private(set) var announced: RouteChoice?
    private var started = false

    init(local: RouteAddress, announcesInitialDifference: Bool) {
        self.local = local
        self.announcesInitialDifference = announcesInitialDifference
    }

    mutating func update(_ facts: RouteFacts) -> [RouteEvent] {
        let holders = facts.addresses[local] ?? []
        let up = { (index: UInt32) in facts.interfaces[index] == true }
        if !started {
            started = true
            if let choice = facts.choice,
                choice.source == local || (choice.source == nil && holders.contains(choice.interface))
            {
                interface = choice.interface
            } else {
                interface = holders.first
            }
            if !announcesInitialDifference, let choice = facts.choice, differs(choice) {
                announced = choice
            }
        } else if let current = interface, facts.interfaces[current] == nil, let replacement = holders.first(where: up)
        {
            // The interface was deleted and the address is back on another one (re-created).
            interface = replacement
        }

        var events: [RouteEvent] = []
        let viable = holders.contains(where: up) && (interface.map(up) ?? true)
        if viable != isViable {
            isViable = viable
            events.append(.viabilityChanged(isViable: viable))
        }
        if let choice = facts.choice {
            if !differs(choice) {
                announced = nil
            } else if viable, choice != announced {
                announced = choice
                events.append(.betterRouteDiscovered)
            }
        }
        return events
    }

    /// Whether the system would now leave by another interface or from another address.
    private func differs(_ choice: RouteChoice) -> Bool {
        if let source = choice.source, source != local { return true }
        return interface.map { $0 != choice.interface } ?? false
    }
}
