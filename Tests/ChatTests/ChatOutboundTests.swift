//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit
import Testing

@testable import ChatServerCore

/// `ChatOutbound` on a real loopback connection: the server's side of it writes, the client
/// reads (or does not).
@Suite(.timeLimit(.minutes(1))) struct ChatOutboundTests {
    /// A listener, the accepted task with an outbound on it, and the client task.
    private static func withOutbound(
        limit: Int, _ body: (ChatOutbound, _ client: StreamTask) async throws -> Void
    ) async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let client = StreamSession().streamTask(withHostName: "127.0.0.1", port: try #require(listener.port))
        client.resume()
        let peer = try #require(await accepted.next())
        let outbound = ChatOutbound(task: peer, limit: limit)
        do {
            try await body(outbound, client)
        } catch {
            client.cancel()
            outbound.abort()
            await listener.shutdown(gracePeriod: 0)
            throw error
        }
        client.cancel()
        outbound.abort()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func waitUntilIdleReturnsOnceEveryQueuedLineIsWritten() async throws {
        try await Self.withOutbound(limit: 1 << 20) { outbound, client in
            let lines = (1...50).map { Array("PING :\($0)\r\n".utf8) }
            for line in lines { #expect(outbound.send(line)) }
            #expect(await outbound.waitUntilIdle(timeout: .seconds(10)))
            // Idle means handed to the kernel: nothing is pending.
            #expect(outbound.pendingBytes == 0)
            let expected = lines.joined()
            let (data, _) = try await client.readData(
                ofMinLength: expected.count, maxLength: expected.count, timeout: 10)
            #expect(data.map(Array.init) == Array(expected))
        }
    }

    @Test func aLastLineIsWrittenAndWhatIsQueuedAfterItIsIgnored() async throws {
        try await Self.withOutbound(limit: 1 << 20) { outbound, client in
            let before = Array("PING :before\r\n".utf8), last = Array("ERROR :last\r\n".utf8)
            #expect(outbound.enqueue(before) == .needsFlush)
            #expect(outbound.enqueueLast(last) == .queued)
            #expect(outbound.enqueue(Array("PING :after\r\n".utf8)) == .queued)
            #expect(outbound.send(Array("PING :sent after\r\n".utf8)))
            outbound.flush()
            #expect(await outbound.waitUntilIdle(timeout: .seconds(10)))
            outbound.task.closeWrite()
            var received = Data()
            while true {
                let (data, atEOF) = try await client.readData(ofMinLength: 1, maxLength: 4096, timeout: 10)
                received += data ?? Data()
                if atEOF { break }
            }
            #expect(String(decoding: received, as: UTF8.self) == "PING :before\r\nERROR :last\r\n")
        }
    }

    @Test func waitUntilIdleGivesUpWhileThePeerDoesNotReadAndSucceedsOnceItDoes() async throws {
        // More than loopback's socket buffers hold, so the write stays with the task.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let chunks = 256
        try await Self.withOutbound(limit: chunks * chunk.count) { outbound, client in
            for _ in 0..<chunks { #expect(outbound.send(chunk)) }
            #expect(await outbound.waitUntilIdle(timeout: .milliseconds(200)) == false)
            #expect(outbound.pendingBytes > 0)

            // A second wait starts afresh after the first timed out, and ends when the client
            // has read everything (16 MiB: under the thread sanitizer that has taken over 10 s).
            async let idle = outbound.waitUntilIdle(timeout: .seconds(45))
            var received = 0
            while received < chunks * chunk.count {
                let (data, atEOF) = try await client.readData(ofMinLength: 1, maxLength: 1 << 20, timeout: 10)
                received += data?.count ?? 0
                if atEOF { break }
            }
            #expect(received == chunks * chunk.count)
            #expect(await idle)
            #expect(outbound.pendingBytes == 0)
        }
    }

    @Test func closingAnIdleOutboundWithLinesGatheredReleasesTheWaiter() async throws {
        try await Self.withOutbound(limit: 1 << 20) { outbound, _ in
            // Queued but not flushed: the outbound is busy until it writes them or closes.
            #expect(outbound.enqueue(Array("NOTICE * :queued\r\n".utf8)) == .needsFlush)
            async let idle = outbound.waitUntilIdle(timeout: .seconds(10))
            // Closed only once the wait is under way, so that the close is what ends it.
            while !outbound.hasIdleWaiter { try await Task.sleep(for: .milliseconds(5)) }
            let unsent = outbound.takeUnsentAndClose()
            #expect(unsent.map { String(decoding: $0, as: UTF8.self) } == "NOTICE * :queued\r\n")
            #expect(await idle)
        }
    }
}
