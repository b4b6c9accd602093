//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import StreamTaskCore

/// Writes and half-close over real sockets on 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskWriteTests {
    @Test func queuedWritesArriveAndCompleteInOrder() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let completed = Recorder<Int>()
        var expected = ""
        for number in 0..<200 {
            let text = "\(number),"
            expected += text
            client.write(Data(text.utf8), timeout: 10) { error in
                #expect(error == nil)
                completed.append(number)
            }
        }
        #expect(try await peer.readText(count: expected.utf8.count) == expected)
        #expect(await eventually { completed.values.count == 200 })
        #expect(completed.values == Array(0..<200))
        #expect(client.metrics.countOfBytesSent == Int64(expected.utf8.count))
        client.cancel()
        await server.stop()
    }

    @Test func byteBufferWritesSendTheReadableBytesAndLeaveTheBufferAlone() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        var buffer = ByteBuffer(string: "skip:")
        buffer.moveReaderIndex(forwardBy: 5)
        buffer.writeString("payload")
        // The same buffer three times: its storage is shared, not consumed.
        for _ in 0..<3 { try await client.write(buffer, timeout: 10) }
        #expect(buffer.readableBytes == 7)
        try await client.write(ByteBuffer(), timeout: 10)
        client.closeWrite()
        #expect(try await peer.readToEnd() == "payloadpayloadpayload")
        client.cancel()
        await server.stop()
    }

    @Test func promiseWritesCompleteInOrderOnTheTasksEventLoop() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let completed = Recorder<Int>()
        let onLoop = Recorder<Bool>()
        var hundredth: EventLoopFuture<Void>?
        for number in 0..<100 {
            let promise = client.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenSuccess {
                onLoop.append(client.eventLoop.inEventLoop)
                completed.append(number)
            }
            client.write(ByteBuffer(string: "\(number),"), timeout: 10, promise: promise)
            hundredth = promise.futureResult
        }
        // A write issued on the loop, from a completion, follows the others.
        let last = client.eventLoop.makePromise(of: Void.self)
        hundredth?.whenSuccess { client.write(ByteBuffer(string: "end"), timeout: 10, promise: last) }
        try await last.futureResult.get()

        let expected = (0..<100).map { "\($0)," }.joined() + "end"
        #expect(try await peer.readText(count: expected.utf8.count) == expected)
        #expect(completed.values == Array(0..<100))
        #expect(onLoop.values == Array(repeating: true, count: 100))
        #expect(client.countOfBytesSent == Int64(expected.utf8.count))

        // A failure reaches the promise as a StreamTaskError.
        client.closeWrite()
        let refused = client.eventLoop.makePromise(of: Void.self)
        client.write(ByteBuffer(string: "late"), timeout: 10, promise: refused)
        let error = await #expect(throws: StreamTaskError.self) { try await refused.futureResult.get() }
        #expect(error?.code == .writeClosed)
        client.cancel()
        await server.stop()
    }

    @Test func halfCloseFromTheClient() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        try await client.write("request")
        client.closeWrite()
        // The peer sees the request, then end of stream; its own direction stays open.
        #expect(try await peer.readToEnd() == "request")
        try await peer.write("response")
        peer.closeWrite()
        #expect(try await client.readToEnd() == "response")

        let events = await client.collectEvents()
        #expect(events.contains { if case .writeClosed = $0 { return true } else { return false } })
        #expect(events.contains { if case .readClosed = $0 { return true } else { return false } })
        guard case .completed(let error) = events.last else {
            Issue.record("the last event is not completion: \(events)")
            return
        }
        #expect(error == nil, "both directions ended in order, so the task completes without error")
        await server.stop()
    }

    @Test func halfCloseFromTheServer() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        try await peer.write("greeting")
        peer.closeWrite()
        #expect(try await client.readToEnd() == "greeting")
        // After the server's end of stream, the client can still send.
        try await client.write("still here")
        client.closeWrite()
        #expect(try await peer.readToEnd() == "still here")
        #expect(await client.waitUntilCompleted() == nil)
        await server.stop()
    }

    @Test func writesAfterCloseWriteFailAtOnce() async throws {
        // No connection at all: the failure cannot come from the network.
        let client = StreamSession().streamTask(withHostName: "127.0.0.1", port: 9)
        client.closeWrite()
        let error = await expectStreamError(.writeClosed) { try await client.write("too late") }
        #expect(error?.description.contains("closeWrite") == true)
        client.cancel()
    }

    @Test func writesAfterCloseWriteOnAConnectionFailAtOnce() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")
        try await client.write("before")
        client.closeWrite()
        await expectStreamError(.writeClosed) { try await client.write("too late") }
        #expect(try await peer.readToEnd() == "before")
        client.cancel()
        await server.stop()
    }

    @Test func aWriteToAPeerThatDoesNotReadTimesOutAndMemoryStaysBounded() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        _ = peer  // never reads

        let chunk = Data(repeating: 0x62, count: 1 << 20)
        var written = 0
        var timedOut: StreamTaskError?
        for _ in 0..<256 {
            do {
                try await client.write(chunk, timeout: 0.5)
                written += chunk.count
            } catch let error as StreamTaskError {
                timedOut = error
                break
            }
        }
        #expect(timedOut?.code == .timedOut)
        // Only what the kernel's buffers and the peer's bounded buffer hold got through.
        #expect(written < 64 << 20, "\(written) bytes were accepted by a peer that never reads")
        if timedOut?.message.contains("nothing of it was sent") == true {
            // It timed out waiting for room, before it reached the channel: withdrawn whole,
            // it leaves no gap in the stream, and the task stays open. An earlier write that
            // returned at once and whose own time runs out in the channel still closes it,
            // and then says so.
            let (state, error) = client.withShared { ($0.state, $0.error) }
            if state == .completed {
                #expect(error?.code == .timedOut, "\(String(describing: error))")
            } else {
                #expect(error == nil, "\(String(describing: error))")
            }
        } else {
            // The channel had it, and part of it may have been sent: the stream is closed. The
            // wait is bounded and the task cancelled after it: a task left open must fail this
            // test, not hold up the server's stop (which waits for its connections) and with
            // it the whole run.
            #expect(
                await eventually(10) { client.state == .completed },
                "the task completed after \(String(describing: timedOut))")
            #expect(client.streamTaskError?.code == .timedOut, "\(String(describing: client.streamTaskError))")
        }
        client.cancel()
        await server.stop()
    }

    /// Runs `body` with a connected client on an event loop of its own, its peer, and a gate
    /// that holds the client's loop until `body` lets it go; the client's connection is up.
    /// (Holding one of the shared loops would stall the connections of every other test.)
    private func withClientOnItsOwnLoop(
        _ body: (_ client: StreamTask, _ peer: StreamTask, _ heldLoop: DispatchSemaphore) async throws -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession(configuration: .default, eventLoopGroup: group).loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")
        let gate = DispatchSemaphore(value: 0)
        client.eventLoop.execute { gate.wait() }
        try await body(client, peer, gate)
        client.cancel()
        peer.cancel()
        await server.stop()
        try await group.shutdownGracefully()
    }

    /// The first `count` bytes `peer` receives, as text.
    private func received(_ count: Int, by peer: StreamTask) async throws -> String {
        var received = Data()
        while received.count < count {
            let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: count - received.count, timeout: 10)
            received.append(data ?? Data())
            if atEOF { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Writes go out in the order they were issued, whichever thread issued them: a write
    /// issued on the task's loop after one issued from the pool, while the loop was busy, goes
    /// out after it, not ahead of it because it was made on the loop.
    @Test func aWriteIssuedOnTheLoopFollowsOneIssuedBeforeItFromThePool() async throws {
        try await withClientOnItsOwnLoop { client, peer, heldLoop in
            // Once let go, the loop writes "B"; "A" is issued meanwhile.
            client.eventLoop.execute { client.write(ByteBuffer(string: "B"), timeout: 10) { _ in } }
            try await client.write(Data("A".utf8), timeout: 10)
            heldLoop.signal()
            #expect(try await received(2, by: peer) == "AB")
        }
    }

    /// `suspend()` takes effect in the order of the operations issued around it: a write issued
    /// after it waits for `resume()`, even when one issued before it is still on its way to
    /// the loop, which the suspension must not overtake either.
    @Test func aWriteIssuedAfterSuspendWaitsThoughOneBeforeItWasStillOnItsWay() async throws {
        try await withClientOnItsOwnLoop { client, peer, heldLoop in
            try await client.write(Data("A".utf8), timeout: 10)
            client.suspend()
            client.write(Data("B".utf8), timeout: 10) { _ in }
            heldLoop.signal()

            #expect(await eventually(10) { client.countOfBytesSent >= 1 }, "A went out")
            // A's write and B's, had it been handed to the channel, complete in the same flush;
            // the loop's next jobs have run by the time these return.
            for _ in 0..<3 { try await client.eventLoop.submit {}.get() }
            #expect(client.countOfBytesSent == 1, "B waits for resume()")
            client.resume()
            #expect(try await received(2, by: peer) == "AB")
        }
    }

    /// An async write that returned at once but reached the loop after the channel filled waits
    /// there behind the full channel. If its time runs out before the channel takes it, it
    /// cannot be withdrawn as a write still waiting for room is: its caller was told it was
    /// written, and the writes after it would close over the gap. The connection closes.
    @Test func aWriteThatReturnedAndTimesOutBeforeTheChannelTakesItClosesTheConnection() async throws {
        // The peer never reads.
        try await withClientOnItsOwnLoop { client, _, heldLoop in
            // With the loop held, a write that fills every buffer, then the async write: it is
            // admitted with room (the channel still looks writable from outside the loop), and
            // reaches the loop, in the order issued, after the channel has filled.
            client.write(Data(repeating: 0x41, count: 32 << 20), timeout: 0) { _ in }
            try await client.write(Data("late".utf8), timeout: 0.3)
            heldLoop.signal()

            #expect(await eventually(10) { client.state == .completed }, "the task completed")
            let error = client.streamTaskError
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(error?.message.contains("a write that had returned") == true, "\(String(describing: error))")
        }
    }

    /// With no outbound allowance every async write waits for the kernel, as the completion-
    /// handler form always does: one queued behind a full channel times out before the channel
    /// takes it, and is withdrawn.
    @Test func aQueuedWriteThatTimesOutIsNeverSent() async throws {
        let configuration = StreamSessionConfiguration.default
        configuration.outboundBufferLimit = 0
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        // The pair is returned once the server has accepted, which can be before the client's
        // own task has seen its connection come up. Writes queued before that are handed to the
        // channel together once it does, and "NEVER" would already be with the channel.
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")

        // A large write fills every buffer and leaves the channel unwritable.
        let big = Data(repeating: 0x41, count: 32 << 20)
        let bigDone = Recorder<Bool>()
        client.write(big, timeout: 0) { error in bigDone.append(error == nil) }
        // This one waits behind it and times out before the channel takes it.
        await expectStreamError(.timedOut) {
            try await client.write(Data("NEVER".utf8), timeout: 0.3)
        }
        client.write(Data("LAST".utf8), timeout: 0) { error in #expect(error == nil) }

        let total = big.count + 4
        var received = Data()
        while received.count < total {
            let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 1 << 20, timeout: 10)
            received.append(data ?? Data())
            if atEOF { break }
        }
        #expect(received.count == total)
        #expect(received.suffix(4) == Data("LAST".utf8))
        #expect(await eventually { bigDone.values == [true] })
        #expect(client.state == .running, "withdrawing a write the channel never took keeps the connection")
        client.cancel()
        await server.stop()
    }

    /// An async write may return before its bytes reach the kernel; one that then fails (the
    /// peer reset the connection) makes a later write throw, so a writer that never reads
    /// still stops within a few writes.
    @Test func writesThatReturnedEarlyReportAResetToALaterWrite() async throws {
        let peer = try await PythonPeer.start("reset-after-reading", "4096")
        let client = StreamSession(configuration: .init(proxy: .direct)).loopbackTask(port: peer.port)
        let chunk = Data(repeating: 0x63, count: 1024)
        var failure: (any Error)?
        var written = 0
        for _ in 0..<10_000 {
            do { try await client.write(chunk, timeout: 10) } catch {
                failure = error
                break
            }
            written += 1
        }
        #expect(failure != nil, "10,000 writes to a connection reset after 4 KiB all succeeded")
        #expect((failure as? StreamTaskError)?.code == .connectionReset, "\(String(describing: failure))")
        #expect(await client.waitUntilCompleted()?.code == .connectionReset)
        _ = await peer.finish()
    }

    /// A write that returned is as good as handed to the kernel: a cancel right after it
    /// lets its bytes out first. And, as on Darwin, the task is cancelling from the moment
    /// `cancel()` returns: what is issued after it fails with `cancelled` meanwhile.
    @Test func aCancelAfterWritesThatReturnedEarlyStillSendsThem() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        #expect(await eventually { client.metrics.remotePort != nil }, "the client's connection is up")
        var sent = Data()
        for index in 0..<100 {
            let line = Data("line \(index)\n".utf8)
            try await client.write(line, timeout: 10)
            sent.append(line)
        }
        client.cancel()
        await expectStreamError(.cancelled) { try await client.write(Data("after\n".utf8), timeout: 10) }
        await expectStreamError(.cancelled) { try await client.readData(ofMinLength: 1, maxLength: 1, timeout: 10) }
        var received = Data()
        while true {
            let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 65536, timeout: 10)
            received.append(data ?? Data())
            if atEOF { break }
        }
        #expect(received == sent)
        #expect(await client.waitUntilCompleted()?.code == .cancelled)
        await server.stop()
    }
}
