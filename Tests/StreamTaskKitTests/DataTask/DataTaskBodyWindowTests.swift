//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import StreamTaskCore
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task reads the body no faster than its owner takes it: at most a window of bytes
/// waits in the process, the rest in the server. The peer sends 16 MiB as fast as it can.
@Suite(.timeLimit(.minutes(1))) struct DataTaskBodyWindowTests {
    static let bodySize = 16 << 20
    /// The window, and what one read beyond it may bring (the decoder hands on what was read).
    static let bound = StreamDataTask.bodyWindow + 256 * 1024

    func waiting(_ dataTask: StreamDataTask) -> (bytes: Int, paused: Bool) {
        dataTask.shared.withLockedValue { ($0.bodyBytesUnconsumed, $0.bodyReadingPaused) }
    }

    @Test func aBodyNobodyTakesStopsAtTheWindowAndGoesOnWhenIterated() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "large-body") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            _ = try await dataTask.receiveResponse()
            var chunks = dataTask.body.makeAsyncIterator()
            var received = try #require(try await chunks.next()).count

            // The server could send all 16 MiB in far less time than this.
            #expect(await eventually { waiting(dataTask).paused }, "reading pauses at the window")
            try await Task.sleep(for: .milliseconds(300))
            let (bytes, paused) = waiting(dataTask)
            #expect(paused)
            #expect(bytes <= Self.bound, "\(bytes) bytes wait for the owner")

            var last = Data()
            var largest = 0
            while let chunk = try await chunks.next() {
                received += chunk.count
                last = (last + chunk).suffix(16)
                largest = max(largest, waiting(dataTask).bytes)
            }
            #expect(largest <= Self.bound, "at most \(largest) bytes waited while the body was taken")
            #expect(received == Self.bodySize)
            #expect(String(decoding: last, as: UTF8.self) == "0123456789abcdef")
            #expect(dataTask.error == nil)
            #expect(waiting(dataTask).bytes == 0)
        }
    }

    @Test func aSlowDelegateHoldsTheBodyBackToo() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "large-body") { server in
            let delegate = SlowBodyDelegate()
            let session = DataTaskTesting.session(delegate: delegate)
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()

            // The delegate holds its first chunk: the task fills the window and stops.
            #expect(await eventually { waiting(dataTask).paused }, "reading pauses at the window")
            try await Task.sleep(for: .milliseconds(300))
            #expect(waiting(dataTask).bytes <= Self.bound, "\(waiting(dataTask).bytes) bytes wait for the delegate")
            #expect(delegate.received.withLockedValue { $0 } < Self.bodySize)

            delegate.gate.signal()
            #expect(await dataTask.waitUntilCompleted() == nil)
            #expect(await eventually { delegate.received.withLockedValue { $0 } == Self.bodySize })
            #expect(delegate.largestWaiting.withLockedValue { $0 } <= Self.bound)
        }
    }
}

extension DataTaskBodyWindowTests {
    /// A consumer that stops (its Swift task cancelled mid-body) lets go of the connection:
    /// the data task is cancelled, not left waiting at the window for good.
    @Test func cancellingTheSwiftTaskThatIteratesTheBodyCancelsTheDataTask() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "large-body") { server in
            let session = DataTaskTesting.session()
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            _ = try await dataTask.receiveResponse()
            let started = NIOLockedValueBox(false)
            let consumer = Task {
                for try await _ in dataTask.body {
                    started.withLockedValue { $0 = true }
                    try await Task.sleep(for: .seconds(60))  // takes one chunk, then no more
                }
            }
            #expect(await eventually { started.withLockedValue { $0 } })
            #expect(await eventually { waiting(dataTask).paused }, "the task stops at the window first")
            consumer.cancel()
            #expect(await eventually { dataTask.state == .completed }, "the data task went on waiting for its consumer")
            #expect(dataTask.streamTaskError?.code == .cancelled)
            #expect(await eventually { session.allTasks.isEmpty }, "the connection was let go")
            dataTask.cancel()  // if the check above failed: lets the peer finish
        }
    }

    /// With a delegate, chunks that arrived before `body` was iterated went to the delegate
    /// alone: iterating then says so instead of returning the rest as if it were all.
    @Test func iteratingTheBodyAfterTheDelegateTookItsStartThrowsRatherThanTruncate() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "large-body") { server in
            let delegate = SlowBodyDelegate()
            delegate.gate.signal()  // takes every chunk at once
            let dataTask = DataTaskTesting.session(delegate: delegate)
                .dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            #expect(await eventually { delegate.received.withLockedValue { $0 } > 0 })
            await #expect {
                _ = try await dataTask.bodyData()
            } throws: { error in
                (error as? StreamTaskError)?.code == .invalidArgument
            }
            dataTask.cancel()
        }
    }
}

/// Blocks its first `didReceive data` until `gate` is signalled, then counts bytes, noting
/// the most the task held back for it meanwhile.
private final class SlowBodyDelegate: StreamSessionDataDelegate, Sendable {
    let gate = DispatchSemaphore(value: 0)
    let received = NIOLockedValueBox(0)
    let largestWaiting = NIOLockedValueBox(0)

    func urlSession(_ session: StreamSession, dataTask: StreamSessionDataTask, didReceive data: Data) {
        if received.withLockedValue({ $0 }) == 0 { gate.wait() }
        // Noted before `received` grows: a test that waits for the whole body then finds
        // `largestWaiting` counting this chunk's wait too.
        let waiting = dataTask.shared.withLockedValue { $0.bodyBytesUnconsumed }
        largestWaiting.withLockedValue { $0 = max($0, waiting) }
        received.withLockedValue { $0 += data.count }
    }
}
