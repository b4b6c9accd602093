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
@testable import StreamTaskRoutes

/// The per-connection decision as a plain value: facts in, events out, no sockets.
@Suite struct RouteWatchTests {
    // The connection leaves from 10.0.2.1 on interface 3 ("worse"); interface 2 holds 10.0.1.1.
    let local = RouteAddress("10.0.2.1")!
    let other = RouteAddress("10.0.1.1")!
    let viaWorse = RouteChoice(interface: 3, source: RouteAddress("10.0.2.1")!)
    let viaBetter = RouteChoice(interface: 2, source: RouteAddress("10.0.1.1")!)

    func facts(
        up: [UInt32: Bool] = [2: true, 3: true],
        addresses: [RouteAddress: [UInt32]]? = nil,
        choice: RouteChoice?
    ) -> RouteFacts {
        RouteFacts(interfaces: up, addresses: addresses ?? [local: [3], other: [2]], choice: choice)
    }

    func clientWatch() -> RouteWatch {
        RouteWatch(local: local, announcesInitialDifference: true)
    }

    @Test func quietWhileNothingChanges() {
        var watch = clientWatch()
        #expect(watch.update(facts(choice: viaWorse)) == [])
        #expect(watch.interface == 3)
        #expect(watch.update(facts(choice: viaWorse)) == [])
        #expect(watch.isViable)
    }

    @Test func aBetterRouteIsAnnouncedOnce() {
        var watch = clientWatch()
        #expect(watch.update(facts(choice: viaWorse)) == [])
        #expect(watch.update(facts(choice: viaBetter)) == [.betterRouteDiscovered])
        // The same better route, evaluated again (another burst, another task's change): silent.
        #expect(watch.update(facts(choice: viaBetter)) == [])
        #expect(watch.update(facts(choice: viaBetter)) == [])
    }

    @Test func anotherBetterRouteIsNewsAgain() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(watch.update(facts(choice: viaBetter)) == [.betterRouteDiscovered])
        let thirdLink = RouteChoice(interface: 5, source: RouteAddress("10.0.5.1")!)
        #expect(watch.update(facts(up: [2: true, 3: true, 5: true], choice: thirdLink)) == [.betterRouteDiscovered])
    }

    @Test func theSameBetterRouteAfterGoingAwayIsNewsAgain() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(watch.update(facts(choice: viaBetter)) == [.betterRouteDiscovered])
        #expect(watch.update(facts(choice: viaWorse)) == [])  // the better route was removed
        #expect(watch.update(facts(choice: viaBetter)) == [.betterRouteDiscovered])
    }

    @Test func anotherSourceOnTheSameInterfaceIsBetter() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        let secondAddress = RouteChoice(interface: 3, source: RouteAddress("10.0.2.9")!)
        #expect(watch.update(facts(choice: secondAddress)) == [.betterRouteDiscovered])
    }

    @Test func anotherInterfaceWithoutASourceIsBetter() {
        // Network.framework names interfaces only.
        var watch = clientWatch()
        #expect(watch.update(facts(choice: RouteChoice(interface: 3, source: nil))) == [])
        #expect(watch.interface == 3)
        #expect(watch.update(facts(choice: RouteChoice(interface: 2, source: nil))) == [.betterRouteDiscovered])
    }

    @Test func linkDownIsNotViableAndBackIsViable() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(watch.update(facts(up: [2: true, 3: false], choice: nil)) == [.viabilityChanged(isViable: false)])
        #expect(!watch.isViable)
        #expect(watch.update(facts(up: [2: true, 3: false], choice: nil)) == [])
        #expect(watch.update(facts(choice: viaWorse)) == [.viabilityChanged(isViable: true)])
    }

    @Test func addressRemovedIsNotViable() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(watch.update(facts(addresses: [other: [2]], choice: viaBetter)) == [.viabilityChanged(isViable: false)])
        // Back on the same interface: viable; the better route was never announced while the
        // connection was down, so it is now.
        #expect(watch.update(facts(choice: viaBetter)) == [.viabilityChanged(isViable: true), .betterRouteDiscovered])
    }

    /// The scenario of the namespace test: connect over the worse link, a better route
    /// appears, the connection's link goes down and comes back. One better-route event in all.
    @Test func betterRouteThenLinkDownThenUp() {
        var watch = clientWatch()
        var events: [RouteEvent] = []
        events += watch.update(facts(choice: viaWorse))
        events += watch.update(facts(choice: viaBetter))
        events += watch.update(facts(up: [2: true, 3: false], choice: viaBetter))
        events += watch.update(facts(up: [2: true, 3: true], choice: viaBetter))
        #expect(
            events == [.betterRouteDiscovered, .viabilityChanged(isViable: false), .viabilityChanged(isViable: true)])
    }

    @Test func interfaceRecreatedWithTheAddressIsViableAgain() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(
            watch.update(facts(up: [2: true], addresses: [other: [2]], choice: viaBetter)) == [
                .viabilityChanged(isViable: false)
            ])
        let recreated = RouteChoice(interface: 7, source: local)
        #expect(
            watch.update(facts(up: [2: true, 7: true], addresses: [local: [7], other: [2]], choice: recreated))
                == [.viabilityChanged(isViable: true)])
        #expect(watch.interface == 7)
    }

    @Test func aClientAnnouncesADifferenceAtTheFirstLookAnAcceptedTaskDoesNot() {
        var client = clientWatch()
        #expect(client.update(facts(choice: viaBetter)) == [.betterRouteDiscovered])
        var accepted = RouteWatch(local: local, announcesInitialDifference: false)
        #expect(accepted.update(facts(choice: viaBetter)) == [])
        #expect(accepted.update(facts(choice: viaBetter)) == [])
    }

    @Test func notViableAtTheFirstLookIsReported() {
        var watch = clientWatch()
        #expect(watch.update(facts(up: [2: true, 3: false], choice: nil)) == [.viabilityChanged(isViable: false)])
    }

    @Test func noRouteAtAllIsNoBetterRoute() {
        var watch = clientWatch()
        _ = watch.update(facts(choice: viaWorse))
        #expect(watch.update(facts(choice: nil)) == [])
        #expect(watch.isViable)
    }
}
