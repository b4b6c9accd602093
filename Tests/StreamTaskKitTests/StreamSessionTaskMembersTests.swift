//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

@testable import StreamTaskCore

/// `URLSessionTask`'s members on a stream task: the earliest begin date, progress, the
/// description, priority and byte counts.
@Suite(.timeLimit(.minutes(1))) struct StreamSessionTaskMembersTests {
    @Test func aTaskWaitsForItsEarliestBeginDate() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let task = StreamSession(configuration: .init(proxy: .direct)).streamTask(
            withHostName: "127.0.0.1", port: server.port)
        let begin = Date().addingTimeInterval(2)
        task.earliestBeginDate = begin
        task.resume()
        #expect(task.state == .running)
        try await task.write("x")
        let peer = try await server.accept(&accepted)
        // A timer can fire late, never early.
        let started = try #require(task.metrics.domainLookupStartDate)
        #expect(started >= begin)
        for task in [task, peer] { task.cancel() }
        await server.stop()
    }

    /// Apple's tasks are `NSObject`s, equal only to themselves: Darwin code keys dictionaries
    /// and sets by task.
    @Test func aTaskEqualsOnlyItselfAndKeysADictionary() {
        let session = StreamSession(configuration: .init(proxy: .direct))
        let first = session.streamTask(withHostName: "127.0.0.1", port: 9)
        let second = session.streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(first == first)
        #expect(first != second)
        var names: [StreamSessionTask: String] = [first: "first"]
        names[second] = "second"
        names[first] = "first again"
        #expect(names.count == 2)
        #expect(names[first] == "first again" && names[second] == "second")
        #expect(Set<StreamSessionTask>([first, second, first]).count == 2)
        session.invalidateAndCancel()
    }

    @Test func progressIsIndeterminateUntilAnOrderlyEnd() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        #expect(client.progress.isIndeterminate)
        #expect(client.countOfBytesExpectedToReceive == StreamSessionTask.transferSizeUnknown)
        try await client.write("abc")
        #expect(try await peer.readText(count: 3) == "abc")
        try await peer.write("de")
        #expect(try await client.readText(count: 2) == "de")
        #expect(client.countOfBytesSent == 3)
        #expect(client.countOfBytesReceived == 2)
        // Both sides close: an orderly end.
        client.closeWrite()
        peer.closeWrite()
        #expect(try await client.readToEnd() == "")
        #expect(await client.waitUntilCompleted() == nil)
        #expect(client.progress.fractionCompleted == 1)
        #expect(!client.progress.isIndeterminate)
        peer.cancel()
        await server.stop()
    }

    @Test func descriptionAndPriorityAreKeptAndPriorityIsClamped() {
        let task = StreamSession().streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(task.priority == StreamSessionTask.defaultPriority)
        #expect(task.taskDescription == nil)
        task.taskDescription = "mine"
        task.priority = 7
        #expect(task.taskDescription == "mine")
        #expect(task.priority == 1)
        task.priority = -1
        #expect(task.priority == 0)
        task.priority = StreamSessionTask.lowPriority
        #expect(task.priority == StreamSessionTask.lowPriority)
        // Apple's values, which a Darwin program may print or compare with.
        #expect(StreamSessionTask.lowPriority == 0.25)
        #expect(StreamSessionTask.highPriority == 0.75)
        #expect(task.state.rawValue == 1)
        #expect(task.prefersIncrementalDelivery)
        task.prefersIncrementalDelivery = false
        #expect(!task.prefersIncrementalDelivery)
        task.cancel()
    }
}
