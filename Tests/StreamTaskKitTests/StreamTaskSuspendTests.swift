//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// `suspend()` and `resume()` over real sockets on 127.0.0.1. What a suspended task holds back is
/// checked on its event loop, after the loop has taken the operation: by then a task that did
/// not hold it would have handed it on, so no check waits for something not to happen.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskSuspendTests {
    /// A connected pair whose client has seen its own connection come up.
    private func upPair() async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        let pair = try await LoopbackServer.connectedPair()
        #expect(await eventually { pair.client.metrics.remotePort != nil }, "the client's connection is up")
        return pair
    }

    @Test func aWriteIssuedWhileSuspendedWaitsForResumeThenArrivesInOrder() async throws {
        let (server, client, peer) = try await upPair()
        // The async write returns once the task has the bytes, before they are sent: the peer
        // reading them is what says they were.
        try await client.write("1")
        #expect(try await peer.readText(count: 1) == "1")
        client.suspend()
        #expect(client.state == .suspended)
        let done = Recorder<String>()
        client.write(Data("2".utf8), timeout: 0) { error in done.append(error == nil ? "2" : "\(error!)") }
        client.write(Data("3".utf8), timeout: 0) { error in done.append(error == nil ? "3" : "\(error!)") }
        // The loop has taken both writes, and neither went to the socket.
        #expect(try await client.onLoop { $0.machine.operations.map(\.isUnderway) } == [false, false])
        #expect(client.countOfBytesSent == 1)
        client.resume()
        #expect(client.state == .running)
        client.write(Data("4".utf8), timeout: 0) { error in done.append(error == nil ? "4" : "\(error!)") }
        #expect(try await peer.readText(count: 3) == "234")
        #expect(await eventually { done.values == ["2", "3", "4"] })
        client.cancel()
        await server.stop()
    }

    @Test func aReadIssuedWhileSuspendedWaitsThoughTheBytesAreThere() async throws {
        let (server, client, peer) = try await upPair()
        client.suspend()
        try await peer.write("hello")
        // The suspended task's connection goes on reading into its buffer.
        #expect(try await client.eventuallyOnLoop { $0.machine.bufferedByteCount == 5 })
        let got = client.recordedRead(count: 5)
        #expect(try await client.onLoop { $0.machine.operations.count } == 1, "the read waits")
        client.resume()
        #expect(await eventually { got.values == ["hello"] })
        client.cancel()
        await server.stop()
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func suspendingAndResumingAtRandomLosesAndReordersNothing(seed: UInt64) async throws {
        let (server, client, peer) = try await upPair()
        let count = 300
        let lines = (0..<count).map { "line \($0)\r\n" }
        // The client writes and reads in two Swift tasks of their own while this one suspends
        // and resumes it; the peer, never suspended, echoes nothing and sends its own lines.
        async let clientWrote: Void = { for line in lines { try await client.write(line) } }()
        async let peerWrote: Void = { for line in lines { try await peer.write(line) } }()
        async let clientRead: [String] = { try await (0..<count).asyncMap { _ in try await client.readLine() } }()
        async let peerRead: [String] = { try await (0..<count).asyncMap { _ in try await peer.readLine() } }()
        var random = SplitMix64(seed: seed)
        // The writes with the channel when a suspension began: no other may join them before
        // the resume.
        var underwayAtSuspension: Set<UInt64>?
        for _ in 0..<200 {
            if Bool.random(using: &random) {
                client.suspend()
                if underwayAtSuspension == nil { underwayAtSuspension = try await client.underwayWrites() }
            } else {
                if let before = underwayAtSuspension {
                    let now = try await client.underwayWrites()
                    #expect(now.isSubset(of: before), "a write went to the channel while suspended")
                }
                underwayAtSuspension = nil
                client.resume()
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0..<2000, using: &random)))
        }
        client.resume()
        try await clientWrote
        try await peerWrote
        #expect(try await clientRead == lines)
        #expect(try await peerRead == lines)
        client.cancel()
        await server.stop()
    }

    @Test func cancellingASuspendedTaskCompletesItWithCancelled() async throws {
        let (server, client, peer) = try await upPair()
        client.suspend()
        async let read = expectStreamError(.cancelled) {
            try await client.readData(ofMinLength: 1, maxLength: 1, timeout: 0)
        }
        async let write = expectStreamError(.cancelled) { try await client.write(Data("x".utf8), timeout: 0) }
        #expect(try await client.eventuallyOnLoop { $0.machine.operations.count == 2 }, "both wait")
        client.cancel()
        _ = await (read, write)
        #expect(await client.waitUntilCompleted()?.code == .cancelled)
        #expect(client.state == .completed)
        #expect(try await peer.readToEnd() == "", "the held write was never sent")
        await server.stop()
    }

    @Test func suspendBeforeTheFirstResumeAndAfterCompletionDoesNothing() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let task = StreamSession().streamTask(withHostName: "127.0.0.1", port: server.port)
        task.suspend()
        #expect(task.state == .suspended)
        task.resume()
        #expect(task.state == .running, "the first resume starts the task")
        let peer = try await server.accept(&accepted)
        try await task.write("hi")
        #expect(try await peer.readText(count: 2) == "hi")
        task.cancel()
        #expect(await task.waitUntilCompleted()?.code == .cancelled)
        task.suspend()
        #expect(task.state == .completed)
        task.resume()
        #expect(task.state == .completed)
        await server.stop()
    }

    @Test func aTaskSuspendedWhileConnectingConnectsAndHoldsItsOperations() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let task = StreamSession().loopbackTask(port: server.port)
        task.suspend()
        task.write(Data("early".utf8), timeout: 0) { error in #expect(error == nil) }
        let peer = try await server.accept(&accepted)
        #expect(try await task.eventuallyOnLoop { $0.machine.isConnected })
        #expect(try await task.onLoop { $0.machine.operations.map(\.isUnderway) } == [false])
        #expect(task.state == .suspended, "connecting does not resume the task")
        task.resume()
        #expect(try await peer.readText(count: 5) == "early")
        task.cancel()
        await server.stop()
    }

    @Test func timeoutsRunWhileSuspendedAndLoseNothing() async throws {
        let (server, client, peer) = try await upPair()
        try await peer.write("kept")
        #expect(try await client.eventuallyOnLoop { $0.unreadByteCount == 4 })
        client.suspend()
        await expectStreamError(.timedOut) { try await client.readData(ofMinLength: 1, maxLength: 10, timeout: 0.2) }
        await expectStreamError(.timedOut) { try await client.write(Data("NEVER".utf8), timeout: 0.2) }
        #expect(client.state == .suspended)
        client.resume()
        #expect(try await client.readText(count: 4) == "kept")
        try await client.write("LAST")
        client.closeWrite()
        #expect(try await peer.readToEnd() == "LAST")
        client.cancel()
        await server.stop()
    }
}

extension StreamTask {
    /// The operations handed to the channel and not completed yet.
    fileprivate func underwayWrites() async throws -> Set<UInt64> {
        try await onLoop { Set($0.machine.operations.filter(\.isUnderway).map(\.id.rawValue)) }
    }
}

extension Range where Bound == Int {
    /// The results of `body` for each element, in order, one after another.
    func asyncMap<T>(_ body: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await body(element)) }
        return results
    }
}
