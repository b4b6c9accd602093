//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOConcurrencyHelpers
import Testing

@testable import StreamTaskCore
@testable import StreamTaskRoutes

/// The process-wide registry, on a private instance with a fake source: started by the first
/// registration, stopped by the last, one route lookup per peer, stale sources ignored.
@Suite struct RouteMonitorTests {
    final class FakeSource: RouteChangeSource {
        let refreshes = NIOLockedValueBox(0)
        let stops = NIOLockedValueBox(0)
        func refresh() { refreshes.withLockedValue { $0 += 1 } }
        func stop() { stops.withLockedValue { $0 += 1 } }
    }

    final class FakeProvider: RouteFactsProvider, Sendable {
        let facts: RouteFacts
        let lookups = NIOLockedValueBox<[RouteAddress]>([])
        init(_ facts: RouteFacts) { self.facts = facts }
        func interfacesAndAddresses() throws -> (interfaces: [UInt32: Bool], addresses: [RouteAddress: [UInt32]]) {
            (facts.interfaces, facts.addresses)
        }
        func choice(to remote: RouteAddress) throws -> RouteChoice? {
            lookups.withLockedValue { $0.append(remote) }
            return facts.choice
        }
    }

    static let logger = StreamSession.Configuration().logger
    let local = RouteAddress("10.0.2.1")!
    let peer = RouteAddress("10.0.9.9")!

    func facts(_ choice: RouteChoice, up: Bool = true) -> RouteFacts {
        RouteFacts(interfaces: [2: true, 3: up], addresses: [local: [3]], choice: choice)
    }

    var worse: RouteChoice { RouteChoice(interface: 3, source: local) }
    var better: RouteChoice { RouteChoice(interface: 2, source: RouteAddress("10.0.1.1")!) }

    @Test func startsWithTheFirstStopsWithTheLastAndDeliversOncePerChange() throws {
        let sources = NIOLockedValueBox<[FakeSource]>([])
        let monitor = RouteMonitor(makeSource: { _ in
            let source = FakeSource()
            sources.withLockedValue { $0.append(source) }
            return source
        })
        let heard = Recorder<String>()
        #expect(!monitor.isRunning)
        let first = try #require(
            monitor.register(local: local, remote: peer, announcesInitialDifference: true, logger: Self.logger) {
                heard.append("first \($0)")
            })
        let second = try #require(
            monitor.register(local: local, remote: peer, announcesInitialDifference: true, logger: Self.logger) {
                heard.append("second \($0)")
            })
        #expect(monitor.isRunning)
        #expect(monitor.registrationCount == 2)
        let source = try #require(sources.withLockedValue { $0.first })
        #expect(sources.withLockedValue { $0.count } == 1)  // one source for both
        #expect(source.refreshes.withLockedValue { $0 } == 2)  // each asks for its first look

        let quiet = FakeProvider(facts(worse))
        monitor.evaluate(using: quiet, from: source, onlyNew: true)
        #expect(quiet.lookups.withLockedValue { $0 } == [peer])  // one lookup for the shared peer
        #expect(heard.values.isEmpty)

        // Only connections never evaluated: none left.
        let ignored = FakeProvider(facts(better))
        monitor.evaluate(using: ignored, from: source, onlyNew: true)
        #expect(ignored.lookups.withLockedValue { $0 }.isEmpty)

        let changed = FakeProvider(facts(better))
        monitor.evaluate(using: changed, from: source, onlyNew: false)
        monitor.evaluate(using: changed, from: source, onlyNew: false)
        #expect(heard.values.sorted() == ["first betterRouteDiscovered", "second betterRouteDiscovered"])

        // A source that is not the running one is ignored.
        monitor.evaluate(using: FakeProvider(facts(worse, up: false)), from: FakeSource(), onlyNew: false)
        #expect(heard.values.count == 2)

        monitor.unregister(first)
        #expect(monitor.isRunning)
        #expect(source.stops.withLockedValue { $0 } == 0)
        monitor.evaluate(using: FakeProvider(facts(worse, up: false)), from: source, onlyNew: false)
        #expect(heard.values.filter { $0.hasPrefix("first") }.count == 1)  // gone: hears nothing
        #expect(heard.values.last == "second viabilityChanged(isViable: false)")

        monitor.unregister(second)
        #expect(!monitor.isRunning)
        #expect(source.stops.withLockedValue { $0 } == 1)

        // The next registration starts a new source.
        let third = try #require(
            monitor.register(local: local, remote: peer, announcesInitialDifference: true, logger: Self.logger) { _ in }
        )
        #expect(sources.withLockedValue { $0.count } == 2)
        monitor.unregister(third)
        #expect(sources.withLockedValue { $0.last?.stops.withLockedValue { $0 } } == 1)
    }

    @Test func aSourceThatCannotStartMeansNoRegistration() {
        let monitor = RouteMonitor(makeSource: { _ in throw RouteMonitorError(description: "no netlink here") })
        let id = monitor.register(local: local, remote: peer, announcesInitialDifference: true, logger: Self.logger) {
            _ in
        }
        #expect(id == nil)
        #expect(!monitor.isRunning)
        #expect(monitor.registrationCount == 0)
    }
}
