//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import NIOConcurrencyHelpers

/// Where the monitor learns the system's facts; one per platform (netlink on Linux,
/// Network.framework's path monitor on Darwin).
protocol RouteFactsProvider {
    /// The interfaces (index → up) and which interfaces hold which address; asked once per
    /// evaluation, whatever the number of connections.
    func interfacesAndAddresses() throws -> (interfaces: [UInt32: Bool], addresses: [RouteAddress: [UInt32]])
    /// The route the system would choose to `remote` now; nil when it has none.
    func choice(to remote: RouteAddress) throws -> RouteChoice?
}

/// A platform's source of change notifications. It calls
/// ``RouteMonitor/evaluate(using:from:onlyNew:)`` on a thread or queue of its own (never Swift's
/// cooperative pool nor Dispatch's global queues), after each burst of changes and after
/// ``refresh()``.
protocol RouteChangeSource: AnyObject, Sendable {
    /// Asks for an evaluation of the connections not evaluated yet, soon.
    func refresh()
    /// Stops watching and releases the source's sockets and thread.
    func stop()
}

/// Why the platform's monitor could not start.
struct RouteMonitorError: Error, CustomStringConvertible {
    var description: String
}

/// The process-wide route monitor: one for every session and task, started when the first
/// connected task registers and stopped when the last one leaves.
///
/// It keeps each connection's ``RouteWatch`` and hands the events that the watches decide on
/// to the task's `deliver` closure, from the source's own thread.
package final class RouteMonitor: Sendable {
    package static let shared = RouteMonitor()

    package typealias Deliver = @Sendable (RouteEvent) -> Void

    private struct Entry {
        var remote: RouteAddress
        var watch: RouteWatch
        var deliver: Deliver
        var evaluated = false
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 1
        var source: (any RouteChangeSource)?
    }

    private let state = NIOLockedValueBox(State())
    /// Makes the platform's source; tests could pass another. Nil where the platform has none.
    private let makeSource: (@Sendable (RouteMonitor) throws -> any RouteChangeSource)?

    init(makeSource: (@Sendable (RouteMonitor) throws -> any RouteChangeSource)? = RouteMonitor.platformSource) {
        self.makeSource = makeSource
    }

    /// Watches the connection from `local` to `remote`; returns the registration's ID for
    /// ``unregister(_:)``, or nil when the platform cannot watch routes (logged at debug).
    package func register(
        local: RouteAddress,
        remote: RouteAddress,
        announcesInitialDifference: Bool,
        logger: Logger,
        deliver: @escaping Deliver
    ) -> Int? {
        guard let makeSource else { return nil }
        let result: Result<(Int, any RouteChangeSource), any Error> = state.withLockedValue { state in
            let source: any RouteChangeSource
            if let running = state.source {
                source = running
            } else {
                do {
                    source = try makeSource(self)
                } catch {
                    return .failure(error)
                }
                state.source = source
            }
            let id = state.nextID
            state.nextID += 1
            let watch = RouteWatch(local: local, announcesInitialDifference: announcesInitialDifference)
            state.entries[id] = Entry(remote: remote, watch: watch, deliver: deliver)
            return .success((id, source))
        }
        switch result {
        case .success(let (id, source)):
            source.refresh()
            return id
        case .failure(let error):
            logger.debug("route monitoring unavailable", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Stops watching a connection; the last one to leave stops the monitor.
    package func unregister(_ id: Int) {
        let idle: (any RouteChangeSource)? = state.withLockedValue { state in
            state.entries[id] = nil
            guard state.entries.isEmpty, let source = state.source else { return nil }
            state.source = nil
            return source
        }
        idle?.stop()
    }

    /// Whether a platform source is running (a socket and a thread on Linux).
    var isRunning: Bool { state.withLockedValue { $0.source != nil } }

    /// How many connections are watched.
    var registrationCount: Int { state.withLockedValue { $0.entries.count } }

    /// How many of them have been evaluated against the system's facts at least once.
    var evaluatedCount: Int { state.withLockedValue { $0.entries.values.filter(\.evaluated).count } }

    /// Re-evaluates every connection (or, with `onlyNew`, those never evaluated) against fresh
    /// facts, and delivers the events their watches decide on. Called by `source` on its own
    /// thread or queue, one call at a time; a source that has been replaced is ignored.
    func evaluate(using provider: some RouteFactsProvider, from source: any RouteChangeSource, onlyNew: Bool) {
        let pending: [(Int, Entry)] = state.withLockedValue { state in
            guard state.source === source else { return [] }
            return state.entries.filter { !onlyNew || !$0.value.evaluated }.map { ($0.key, $0.value) }
        }
        guard !pending.isEmpty, let (interfaces, addresses) = try? provider.interfacesAndAddresses() else { return }
        // One route lookup per peer, however many connections go there.
        var choices: [RouteAddress: RouteChoice?] = [:]
        var updates: [(id: Int, watch: RouteWatch, events: [RouteEvent], deliver: Deliver)] = []
        for (id, entry) in pending {
            if choices[entry.remote] == nil {
                do {
                    choices[entry.remote] = .some(try provider.choice(to: entry.remote))
                } catch {
                    continue  // the kernel did not answer: this one waits for the next change
                }
            }
            var watch = entry.watch
            let facts = RouteFacts(interfaces: interfaces, addresses: addresses, choice: choices[entry.remote] ?? nil)
            let events = watch.update(facts)
            updates.append((id, watch, events, entry.deliver))
        }
        let delivered = state.withLockedValue { state in
            updates.filter { update in
                guard state.source === source, state.entries[update.id] != nil else { return false }
                state.entries[update.id]?.watch = update.watch
                state.entries[update.id]?.evaluated = true
                return true
            }
        }
        for update in delivered {
            for event in update.events { update.deliver(event) }
        }
    }
}

#if !os(Linux) && !canImport(Network)
extension RouteMonitor {
    /// No route source on this platform: tasks hear no route events.
    static let platformSource: (@Sendable (RouteMonitor) throws -> any RouteChangeSource)? = nil
}
#endif
