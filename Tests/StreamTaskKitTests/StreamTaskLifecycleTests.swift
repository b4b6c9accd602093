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
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

/// Connecting, failing, cancelling, metrics, events and the session's bookkeeping.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskLifecycleTests {
    @Test func connectionRefusedFailsEveryQueuedOperation() async throws {
        // Not a port whose listener just closed: another test's listener can take that one
        // before the connection is tried (it happened in a CI rehearsal).
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let task = StreamSession().streamTask(withHostName: "127.0.0.1", port: port)
        let read = Recorder<StreamTaskError.Code>()
        let apple = Recorder<String>()
        task.readData(ofMinLength: 1, maxLength: 10, timeout: 0) { _, _, error in
            // What Darwin code checks: a URLError, in NSURLErrorDomain, with Apple's code.
            let nsError = error.map { $0 as NSError }
            apple.append(
                "\((error as? URLError)?.code == .cannotConnectToHost) \(nsError?.domain ?? "") \(nsError?.code ?? 0)")
            // Last, because the test waits for this one and then reads `apple` at once.
            read.append(error?.streamTaskError?.code ?? .invalidArgument)
        }
        task.resume()
        let error = await expectStreamError(.connectionRefused) { try await task.write("hello") }
        #expect(error?.host == "127.0.0.1")
        #expect(error?.port == port)
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        #expect(error?.errno == ECONNREFUSED)
        #expect(await eventually { read.values == [.connectionRefused] })
        #expect(apple.values == ["true \(NSURLErrorDomain) \(NSURLErrorCannotConnectToHost)"])
        #expect(await task.waitUntilCompleted()?.code == .connectionRefused)
        #expect(task.state == .completed)
    }

    @Test func unknownHostNamesTheHost() async throws {
        // A name with an empty label: glibc rejects it without sending a DNS query, so the test
        // stays on this machine while exercising the same "no such host" path.
        let task = StreamSession().streamTask(withHostName: "no..such.invalid", port: 7)
        task.resume()
        let error = await expectStreamError(.hostNotFound) {
            try await task.readData(ofMinLength: 1, maxLength: 1, timeout: 0)
        }
        #expect(error?.description.contains("no..such.invalid:7") == true)
        #expect(task.metrics.domainLookupStartDate != nil)
        #expect(task.metrics.connectStartDate == nil)
    }

    /// Given to the resolver, 70000 would connect to port 4464 (its low 16 bits).
    @Test(arguments: [0, -1, 65536, 70000])
    func aPortOutsideTCPsRangeIsRefusedBeforeResolving(port: Int) async throws {
        let task = StreamSession(configuration: .init(proxy: .direct)).streamTask(
            withHostName: "127.0.0.1", port: port)
        task.resume()
        let error = await expectStreamError(.invalidArgument) {
            try await task.readData(ofMinLength: 1, maxLength: 1, timeout: 10)
        }
        #expect(error?.message.contains("out of range") == true)
        #expect(task.metrics.domainLookupStartDate == nil)
    }

    @Test func connectTimeoutFailsQueuedOperations() async throws {
        // A listener with a backlog of 0 that never accepts: once its queue is full, the
        // kernel drops further SYNs and connecting hangs until our timeout.
        let peer = try await PythonPeer.start("never-accept")
        let configuration = StreamSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 1
        let session = StreamSession(configuration: configuration)
        var fillers: [StreamTask] = []
        var timedOut: StreamTaskError?
        for _ in 0..<8 where timedOut == nil {
            let task = session.loopbackTask(port: peer.port)
            fillers.append(task)
            do {
                try await task.write("x")
            } catch let error as StreamTaskError {
                timedOut = error
            }
        }
        #expect(timedOut?.code == .connectTimeout)
        #expect(timedOut?.description.contains("127.0.0.1:\(peer.port)") == true)
        for task in fillers { task.cancel() }
        _ = await peer.finish()
    }

    @Test func cancelFailsEveryQueuedOperation() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let failures = Recorder<StreamTaskError.Code>()
        for _ in 0..<3 {
            client.readData(ofMinLength: 1, maxLength: 1, timeout: 0) { _, _, error in
                // Apple's form first, then the library's detail behind it.
                guard (error as? URLError)?.code == .cancelled else { return failures.append(.invalidArgument) }
                failures.append(error?.streamTaskError?.code ?? .invalidArgument)
            }
        }
        client.cancel()
        #expect(await eventually { failures.values.count == 3 })
        #expect(failures.values == [.cancelled, .cancelled, .cancelled])
        #expect(await client.waitUntilCompleted()?.code == .cancelled)
        await expectStreamError(.cancelled) { try await client.write("after cancel") }
        // The peer sees the connection end.
        #expect(try await peer.readToEnd() == "")
        await server.stop()
    }

    @Test func cancellingASuspendedTaskFailsItsOperations() async throws {
        let session = StreamSession()
        let task = session.streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(task.state == .suspended)
        #expect(session.allTasks.map(\.taskIdentifier) == [task.taskIdentifier])
        async let read = expectStreamError(.cancelled) {
            try await task.readData(ofMinLength: 1, maxLength: 1, timeout: 0)
        }
        task.cancel()
        _ = await read
        #expect(await task.waitUntilCompleted()?.code == .cancelled)
        #expect(session.allTasks.isEmpty)
    }

    @Test(arguments: [(-1, 10), (0, 0), (8, 4)])
    func invalidLengthsFailAtOnceEvenBeforeResume(minLength: Int, maxLength: Int) async throws {
        let task = StreamSession().streamTask(withHostName: "127.0.0.1", port: 9)
        let error = await expectStreamError(.invalidArgument) {
            try await task.readData(ofMinLength: minLength, maxLength: maxLength, timeout: 0)
        }
        #expect(error?.message.isEmpty == false)
        #expect(task.state == .suspended)
        task.cancel()
    }

    @Test func aResetFailsThatTaskOnly() async throws {
        let resetting = try await PythonPeer.start("reset-after", "abc")
        let echo = try await PythonPeer.start("echo")
        let session = StreamSession()
        let victim = session.loopbackTask(port: resetting.port)
        let bystander = session.loopbackTask(port: echo.port)

        try await bystander.write("before")
        #expect(try await bystander.readText(count: 6) == "before")
        try await victim.write("x")  // tells the peer to reset
        let error = await expectStreamError(.connectionReset) {
            try await victim.readData(ofMinLength: 10, maxLength: 10, timeout: 10)
        }
        #expect(error?.errno == ECONNRESET)
        // The three bytes that came before the reset are not lost.
        let (early, _) = try await victim.readData(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(early == Data("abc".utf8))
        await expectStreamError(.connectionReset) {
            try await victim.readData(ofMinLength: 1, maxLength: 10, timeout: 10)
        }
        #expect(await victim.waitUntilCompleted()?.code == .connectionReset)

        try await bystander.write("after")
        #expect(try await bystander.readText(count: 5) == "after")
        bystander.closeWrite()
        #expect(try await bystander.readToEnd() == "")
        _ = await resetting.finish()
        _ = await echo.finish()
    }

    @Test func readAfterCloseReadFailsClearly() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession().loopbackTask(port: server.port)
        _ = try await server.accept(&accepted)
        client.closeRead()
        let error = await expectStreamError(.readClosed) {
            try await client.readData(ofMinLength: 1, maxLength: 1, timeout: 1)
        }
        #expect(error?.description.contains("closeRead") == true)
        client.cancel()
        await server.stop()
    }

    @Test func metricsAreFilledAndDeliveredOnce() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let delegate = RecordingDelegate()
        let session = StreamSession(delegate: delegate)
        let client = session.streamTask(withHostName: "localhost", port: server.port)
        client.resume()
        let peer = try await server.accept(&accepted)

        try await client.write("12345")
        #expect(try await peer.readText(count: 5) == "12345")
        try await peer.write("abc")
        #expect(try await client.readText(count: 3) == "abc")
        let running = client.metrics
        #expect(running.taskEndDate == nil)
        #expect(running.countOfBytesSent == 5)
        #expect(running.countOfBytesReceived == 3)

        client.closeWrite()
        peer.closeWrite()
        #expect(try await client.readToEnd() == "")
        let events = await client.collectEvents()
        let delivered = events.compactMap { event -> StreamTaskMetrics? in
            if case .metricsCollected(let metrics) = event { return metrics }
            return nil
        }
        #expect(delivered.count == 1)
        let metrics = try #require(delivered.first)
        let lookupStart = try #require(metrics.domainLookupStartDate)
        let lookupEnd = try #require(metrics.domainLookupEndDate)
        let connectStart = try #require(metrics.connectStartDate)
        let connectEnd = try #require(metrics.connectEndDate)
        let end = try #require(metrics.taskEndDate)
        #expect(metrics.taskStartDate <= lookupStart)
        #expect(lookupStart <= lookupEnd)
        #expect(lookupEnd <= connectStart)
        #expect(connectStart <= connectEnd)
        #expect(connectEnd <= end)
        #expect(metrics.secureConnectionStartDate == nil)
        #expect(metrics.isProxyConnection == false)
        #expect(metrics.remotePort == server.port)
        #expect(metrics.remoteAddress == "127.0.0.1")
        #expect(metrics.localAddress == "127.0.0.1")
        #expect(metrics.localPort == peer.port)
        #expect(metrics.countOfBytesSent == 5)
        #expect(metrics.countOfBytesReceived == 3)
        #expect(metrics.taskInterval.duration >= 0)
        #expect(client.metrics == metrics)

        #expect(await eventually { delegate.calls.contains("complete nil") })
        #expect(delegate.calls.filter { $0 == "metrics" }.count == 1)
        #expect(delegate.calls.contains("writeClosed"))
        #expect(delegate.calls.contains("readClosed"))
        #expect(delegate.calls.last == "complete nil")
        await server.stop()
    }

    @Test func eventsReplayToLateSubscribers() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let task = StreamSession().loopbackTask(port: port)
        #expect(await task.waitUntilCompleted()?.code == .connectionRefused)
        // Subscribing after completion still sees the whole story, then the end.
        let events = await task.collectEvents()
        #expect(events.count == 2)
        if case .metricsCollected = events.first {} else { Issue.record("first event: \(events)") }
        if case .completed(let error) = events.last {
            #expect(error?.code == .connectionRefused)
        } else {
            Issue.record("last event: \(events)")
        }
    }
}

/// A delegate that writes down which callbacks it got, in order.
final class RecordingDelegate: StreamSessionStreamDelegate {
    private let box = NIOLockedValueBox<[String]>([])
    var calls: [String] { box.withLockedValue { $0 } }

    func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask) {
        box.withLockedValue { $0.append("readClosed") }
    }

    func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask) {
        box.withLockedValue { $0.append("writeClosed") }
    }

    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics
    ) {
        box.withLockedValue { $0.append("metrics") }
    }

    func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?) {
        let code = error?.streamTaskError?.code.description ?? "nil"
        box.withLockedValue { $0.append("complete \(code)") }
    }

    func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?) {
        box.withLockedValue { $0.append("invalid") }
    }
}
