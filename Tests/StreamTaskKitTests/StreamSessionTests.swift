//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@testable import StreamTaskCore
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's per-host limit, task registry and invalidation, over real sockets.
@Suite(.timeLimit(.minutes(1))) struct StreamSessionTests {
    @Test func tasksOverThePerHostLimitWaitInOrderAndGoWhenASlotFrees() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let configuration = StreamSessionConfiguration.default
        configuration.maximumConnectionsPerHost = 2
        let session = StreamSession(configuration: configuration)

        let tasks = (0..<4).map { _ in session.streamTask(withHostName: "127.0.0.1", port: server.port) }
        for (index, task) in tasks.enumerated() {
            task.resume()
            // Each task says who it is as soon as it is connected.
            task.write(Data("\(index)".utf8), timeout: 0) { _ in }
        }
        var peers: [StreamTask] = []
        for _ in 0..<2 {
            peers.append(try await server.accept(&accepted))
        }
        let first = try await peers[0].readText(count: 1)
        let second = try await peers[1].readText(count: 1)
        #expect(Set([first, second]) == ["0", "1"])
        // The other two have not even started to connect.
        #expect(tasks[2].metrics.domainLookupStartDate == nil)
        #expect(tasks[3].metrics.domainLookupStartDate == nil)
        #expect(tasks[2].state == .running)

        // Ending one task lets the next one in line connect, and only that one.
        tasks[0].cancel()
        peers.append(try await server.accept(&accepted))
        #expect(try await peers[2].readText(count: 1) == "2")
        #expect(tasks[3].metrics.domainLookupStartDate == nil)
        tasks[1].cancel()
        peers.append(try await server.accept(&accepted))
        #expect(try await peers[3].readText(count: 1) == "3")

        for task in tasks { task.cancel() }
        await server.stop()
    }

    @Test func aCancelledWaitingTaskGivesUpItsPlace() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let configuration = StreamSessionConfiguration.default
        configuration.maximumConnectionsPerHost = 1
        let session = StreamSession(configuration: configuration)

        let holder = session.loopbackTask(port: server.port)
        let skipped = session.loopbackTask(port: server.port)
        let next = session.loopbackTask(port: server.port)
        try await holder.write("h")
        _ = try await server.accept(&accepted)
        skipped.cancel()
        #expect(await skipped.waitUntilCompleted()?.code == .cancelled)
        holder.cancel()
        try await next.write("n")
        let peer = try await server.accept(&accepted)
        #expect(try await peer.readText(count: 1) == "n")
        next.cancel()
        await server.stop()
    }

    @Test func allTasksListsOutstandingTasksOnly() async throws {
        let session = StreamSession()
        let a = session.streamTask(withHostName: "127.0.0.1", port: 9)
        let b = session.streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(session.allTasks.map(\.taskIdentifier) == [a.taskIdentifier, b.taskIdentifier])
        a.cancel()
        await a.waitUntilCompleted()
        #expect(session.allTasks.map(\.taskIdentifier) == [b.taskIdentifier])
        b.cancel()
        await b.waitUntilCompleted()
        #expect(session.allTasks.isEmpty)
    }

    @Test func invalidateAndCancelCancelsEverythingAndRefusesNewTasks() async throws {
        let server = try await LoopbackServer.start()
        let delegate = RecordingDelegate()
        let session = StreamSession(delegate: delegate)
        let running = session.loopbackTask(port: server.port)
        let suspended = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        try await running.write("x")

        session.invalidateAndCancel()
        #expect(await running.waitUntilCompleted()?.code == .cancelled)
        #expect(await suspended.waitUntilCompleted()?.code == .cancelled)
        #expect(session.allTasks.isEmpty)
        #expect(await eventually { delegate.calls.last == "invalid" })

        let late = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        #expect(late.state == .completed)
        let error = await expectStreamError(.sessionInvalidated) { try await late.write("refused") }
        #expect(error?.message.contains("invalidated") == true)
        await server.stop()
    }

    @Test func tasksRefusedAtBirthStillGetIdentifiersOfTheirOwn() throws {
        let session = StreamSession()
        let running = session.streamTask(withHostName: "127.0.0.1", port: 9)
        let unusable = session.dataTask(with: URLRequest(url: try #require(URL(string: "ftp://127.0.0.1/"))))
        session.invalidateAndCancel()
        let refused = session.streamTask(withHostName: "127.0.0.1", port: 9)
        let refusedToo = session.streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(refused.state == .completed)
        #expect(refused.streamTaskError?.code == .sessionInvalidated)
        #expect(unusable.state == .completed)
        let identifiers = [
            running.taskIdentifier, unusable.taskIdentifier, refused.taskIdentifier, refusedToo.taskIdentifier,
        ]
        #expect(Set(identifiers).count == identifiers.count, "identifiers \(identifiers) repeat")
        #expect(identifiers == identifiers.sorted(), "identifiers \(identifiers) are handed out in creation order")
    }

    @Test func finishTasksAndInvalidateLetsRunningTasksFinish() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let delegate = RecordingDelegate()
        let session = StreamSession(delegate: delegate)
        let client = session.loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)

        session.finishTasksAndInvalidate()
        // The running task still works.
        try await client.write("still")
        #expect(try await peer.readText(count: 5) == "still")
        #expect(!delegate.calls.contains("invalid"))

        client.closeWrite()
        peer.closeWrite()
        #expect(try await client.readToEnd() == "")
        #expect(await client.waitUntilCompleted() == nil)
        #expect(await eventually { delegate.calls.last == "invalid" })
        await server.stop()
    }

    /// Tasks complete on different loops: one that has left the session but not yet queued its
    /// didComplete (held there by an attachment) keeps "invalid" back, so the delegate hears
    /// every task's completion first and "invalid" last, as Apple's contract has it.
    @Test func invalidComesAfterEveryTasksCompletionWhenTasksFinishOnOtherLoops() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let delegate = RecordingDelegate()
        let session = StreamSession(delegate: delegate, eventLoopGroup: group)
        let held = session.streamTask(withHostName: "127.0.0.1", port: 9)
        let other = session.streamTask(withHostName: "127.0.0.1", port: 9)
        try #require(held.eventLoop !== other.eventLoop)
        let hold = CompletionHold { delegate.calls.contains("invalid") }
        try await held.onLoop { $0.attach(hold) }

        session.finishTasksAndInvalidate()
        held.cancel()
        #expect(await eventually { hold.reached })
        other.cancel()
        #expect(await eventually { delegate.calls.last == "invalid" })
        #expect(delegate.calls.filter { $0.hasPrefix("complete") }.count == 2, "calls: \(delegate.calls)")
        #expect(delegate.calls.filter { $0 == "invalid" }.count == 1, "calls: \(delegate.calls)")
        try await group.shutdownGracefully()
    }

    @Test func connectionsShareTheSessionsEventLoops() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        // One thread for the whole session: if a task needed a thread of its own, or blocked
        // its loop, fifty live connections could not all make progress on it.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let session = StreamSession(eventLoopGroup: group)
        let loop = group.next()

        let tasks = (0..<50).map { _ in session.loopbackTask(port: server.port) }
        #expect(tasks.allSatisfy { $0.eventLoop === loop })
        var peers: [StreamTask] = []
        for (index, task) in tasks.enumerated() {
            try await task.write("\(index);")
            peers.append(try await server.accept(&accepted))
        }
        // Every connection is alive at once and answers in turn.
        for peer in peers {
            try await peer.write("ok")
        }
        for task in tasks {
            #expect(try await task.readText(count: 2) == "ok")
        }
        session.invalidateAndCancel()
        await server.stop()
        try await group.shutdownGracefully()
    }

    /// An IPv6 address in a URL's brackets names the same host as without them.
    @Test func aBracketedIPv6AddressConnectsAndIsReportedWithoutItsBrackets() async throws {
        #expect(StreamSession.unbracketed("[::1]") == "::1")
        #expect(StreamSession.unbracketed("[2001:db8::1]") == "2001:db8::1")
        // Only an address is unwrapped: anything else stays as it was given.
        for kept in ["::1", "[]", "[example.com]", "example.com", "[::1", "::1]"] {
            #expect(StreamSession.unbracketed(kept) == kept)
        }

        let target = try await GreetingServer.start(host: "::1")
        let task = StreamSession(configuration: StreamSession.Configuration(proxy: .direct))
            .streamTask(withHostName: "[::1]", port: target.port)
        #expect(task.host == "::1")
        task.resume()
        try await task.converseWithGreetingServer(halfClose: false)
        task.cancel()
        await target.stop()
    }
}

/// Holds its task's completion between leaving the session and queueing didComplete: blocks the
/// task's loop until `release` says so, or for a second at most.
private final class CompletionHold: StreamTaskAttachment {
    private let release: @Sendable () -> Bool
    private let box = NIOLockedValueBox(false)
    /// Whether the task's completion has reached the hold.
    var reached: Bool { box.withLockedValue { $0 } }

    init(release: @escaping @Sendable () -> Bool) {
        self.release = release
    }

    func taskCompleted(_ error: StreamTaskError?) {
        box.withLockedValue { $0 = true }
        let deadline = Date().addingTimeInterval(1)
        while !release(), Date() < deadline {
            usleep(10_000)
        }
    }
}
