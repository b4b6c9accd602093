//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore
@testable import StreamTaskRoutes

/// The route monitor against the real kernel: a server reachable over two veth links from a
/// network namespace made for the test (see ``RouteLab``). Needs root and iproute2: elsewhere
/// the suite is skipped and says so on standard error ("SKIPPED: …"), and Swift Testing lists
/// it as skipped, not passed; with `CI=true` it always runs, and fails if it cannot.
@Suite(
    .serialized,
    .enabled("needs root and `ip netns` (iproute2); CI=true makes it mandatory") { await RouteLab.isAvailable() }
)
struct RouteNamespaceTests {
    /// Route and viability events as short words, for plain comparisons.
    static func word(_ event: StreamTaskEvent) -> String? {
        switch event {
        case .betterRouteDiscovered: "better"
        case .viabilityChanged(let isViable): isViable ? "viable" : "not viable"
        default: nil
        }
    }

    /// The task's route events from its start, once `enough` says so, or when `seconds` have
    /// passed (a bounded observation window, not a claim about speed).
    static func routeEvents(
        of task: StreamTask,
        within seconds: Int,
        until enough: @escaping @Sendable ([String]) -> Bool = { _ in false }
    ) async -> [String] {
        await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var seen: [String] = []
                for await event in task.events {  // replays what already happened
                    if let word = word(event) { seen.append(word) }
                    if enough(seen) { break }
                }
                return seen
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            var result: [String] = []
            if let first = await group.next(), let seen = first {
                result = seen
            }
            group.cancelAll()  // ends the other child: the sleep, or the event iteration
            for await rest in group {
                if let seen = rest { result = seen }
            }
            return result
        }
    }

    final class Delegate: StreamSessionStreamDelegate {
        let heard = Recorder<String>()
        func urlSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamSessionStreamTask) {
            heard.append("better")
        }
        func urlSession(
            _ session: StreamSession, viabilityDidChangeFor streamTask: StreamSessionStreamTask, isViable: Bool
        ) {
            heard.append(isViable ? "viable" : "not viable")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func betterRouteOnceThenNotViableThenViable() async throws {
        let lab = try await RouteLab.create()
        do {
            try await scenario(lab)
        } catch {
            await lab.remove()
            throw error
        }
        await lab.remove()
    }

    private func scenario(_ lab: RouteLab) async throws {
        let delegate = Delegate()
        let session = StreamSession(configuration: .init(proxy: .direct), delegate: delegate)
        let unmonitored = StreamSession.Configuration(proxy: .direct)
        unmonitored.monitorsRoutes = false
        let quietSession = StreamSession(configuration: unmonitored)

        let task = session.streamTask(withHostName: lab.serverAddress, port: RouteLab.port)
        let quiet = quietSession.streamTask(withHostName: lab.serverAddress, port: RouteLab.port)
        task.resume()
        quiet.resume()
        defer {
            task.cancel()
            quiet.cancel()
        }
        // A round trip each: connected (and so registered with the monitor) over link b.
        for connection in [task, quiet] {
            try await connection.write("hello\r\n")
            #expect(try await connection.readLine() == "hello\r\n")
            #expect(connection.metrics.localAddress == lab.clientB)
        }
        #expect(RouteMonitor.shared.isRunning)
        #expect(await Self.routeEvents(of: task, within: 1).isEmpty)  // nothing changed yet

        // A better route (lower metric, over link a): one event, however many netlink
        // messages, and no second one in the window after it.
        try await lab.addBetterRoute()
        let afterRoute = await Self.routeEvents(of: task, within: 20) { $0.contains("better") }
        #expect(afterRoute == ["better"], "the better route was not announced (or not once)")
        #expect(await Self.routeEvents(of: task, within: 2) == ["better"])
        #expect(task.state == .running)  // the connection still works: it is the owner's call

        // Link b, the one the connection uses, goes down: not viable.
        try await lab.setLinkB(up: false)
        let afterDown = await Self.routeEvents(of: task, within: 20) { $0.contains("not viable") }
        #expect(afterDown == ["better", "not viable"])

        // And back: viable, and no repeat of the better route (it is the same one).
        try await lab.setLinkB(up: true)
        let afterUp = await Self.routeEvents(of: task, within: 20) { $0.contains("viable") }
        #expect(afterUp == ["better", "not viable", "viable"])
        #expect(await Self.routeEvents(of: task, within: 2) == ["better", "not viable", "viable"])

        // The delegate heard the same, in the same order (flush its queue first).
        await withCheckedContinuation { continuation in session.delegateQueue.addOperation { continuation.resume() } }
        #expect(delegate.heard.values == ["better", "not viable", "viable"])

        // The session that turned monitoring off heard nothing, through all of it.
        #expect(await Self.routeEvents(of: quiet, within: 1).isEmpty)
        #expect(quiet.state == .running)
    }
}
