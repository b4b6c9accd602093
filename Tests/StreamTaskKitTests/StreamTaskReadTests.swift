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

/// Reads over real sockets on 127.0.0.1, with one of our listeners as the peer.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskReadTests {
    @Test func readReturnsAtExactlyMinLength() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let session = StreamSession()
        let client = session.loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)

        try await peer.write("12345")
        let (data, atEOF) = try await client.readData(ofMinLength: 5, maxLength: 10, timeout: 10)
        #expect(data == Data("12345".utf8))
        #expect(atEOF == false)
        client.cancel()
        await server.stop()
    }

    @Test func bytesBeyondMaxLengthWaitForTheNextRead() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        try await peer.write("abcdefghij")
        // Wait until all ten bytes are here, then take four.
        let (first, _) = try await client.readData(ofMinLength: 4, maxLength: 4, timeout: 10)
        #expect(first == Data("abcd".utf8))
        let rest = try await client.readText(count: 6)
        #expect(rest == "efghij")
        client.cancel()
        await server.stop()
    }

    @Test func endOfStreamBeforeMinLengthReturnsWhatIsLeft() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        try await peer.write("abc")
        peer.closeWrite()
        let (data, atEOF) = try await client.readData(ofMinLength: 10, maxLength: 20, timeout: 10)
        #expect(data == Data("abc".utf8))
        #expect(atEOF)
        let (after, stillAtEOF) = try await client.readData(ofMinLength: 1, maxLength: 20, timeout: 10)
        #expect(after == Data())
        #expect(stillAtEOF)
        client.cancel()
        await server.stop()
    }

    @Test func aLoopReadingWithMinimumZeroUntilTheEndTerminatesWithoutSpinning() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        // Issued while nothing is buffered: it waits for a byte rather than return nothing.
        let first = Recorder<(Data?, Bool)>()
        client.readData(ofMinLength: 0, maxLength: 2, timeout: 10) { data, atEOF, _ in first.append((data, atEOF)) }
        // It waits in the machine's queue.
        let waits = try await client.onLoop { driver in driver.machine.operations.count == 1 }
        #expect(waits, "the first read waits")
        #expect(first.values.isEmpty)
        try await peer.write("abcde")
        peer.closeWrite()
        #expect(await eventually { first.values.count == 1 })
        let (firstData, firstAtEOF) = try #require(first.values.first)
        #expect(firstData?.isEmpty == false)
        var text = String(decoding: firstData ?? Data(), as: UTF8.self)
        var reads = 1
        var atEOF = firstAtEOF
        while !atEOF && reads < 20 {
            let (data, end) = try await client.readData(ofMinLength: 0, maxLength: 2, timeout: 10)
            reads += 1
            #expect(data?.isEmpty == false || end, "a read returned nothing, not at the end")
            text += String(decoding: data ?? Data(), as: UTF8.self)
            atEOF = end
        }
        #expect(atEOF)
        #expect(text == "abcde")
        #expect(reads <= 6, "\(reads) reads of up to 2 bytes for 5 bytes and the end")
        // At the end, every read returns at once: empty data, at EOF.
        for minLength in [0, 1, 4] {
            let (data, end) = try await client.readData(ofMinLength: minLength, maxLength: 4, timeout: 10)
            #expect(data == Data())
            #expect(end)
        }
        client.cancel()
        await server.stop()
    }

    @Test func timedOutReadLosesNoBytes() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        try await peer.write("abc")
        // Make sure the three bytes have arrived before the read that will time out.
        #expect(await eventually { client.metrics.countOfBytesReceived == 3 })
        let error = await expectStreamError(.timedOut) {
            try await client.readData(ofMinLength: 5, maxLength: 10, timeout: 0.2)
        }
        #expect(error?.message.contains("no bytes were lost") == true)
        try await peer.write("de")
        let (data, _) = try await client.readData(ofMinLength: 5, maxLength: 10, timeout: 10)
        #expect(data == Data("abcde".utf8))
        client.cancel()
        await server.stop()
    }

    @Test func queuedReadsCompleteInTheOrderIssued() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let results = Recorder<String>()
        let done = Recorder<Void>()
        for length in [3, 1, 5] {
            client.readData(ofMinLength: length, maxLength: length, timeout: 10) { data, _, error in
                #expect(error == nil)
                results.append(String(decoding: data ?? Data(), as: UTF8.self))
                done.append(())
            }
        }
        try await peer.write("aaabccccc")
        #expect(await eventually { done.values.count == 3 })
        #expect(results.values == ["aaa", "b", "ccccc"])
        client.cancel()
        await server.stop()
    }

    @Test func aPendingReadDoesNotHoldBackAWrite() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        // The read is issued first; the peer answers only once the write reaches it.
        let response = Recorder<String>()
        client.readData(ofMinLength: 4, maxLength: 4, timeout: 10) { data, _, _ in
            response.append(String(decoding: data ?? Data(), as: UTF8.self))
        }
        try await client.write("ping")
        #expect(try await peer.readText(count: 4) == "ping")
        try await peer.write("pong")
        #expect(await eventually { response.values == ["pong"] })
        client.cancel()
        await server.stop()
    }

    @Test func readsUpToADelimiter() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let crlf = Data("\r\n".utf8)

        try await peer.write("NICK alice\r\nUSER alice 0 * :Alice\r\npartial")
        #expect(
            try await client.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 10)
                == Data("NICK alice\r\n".utf8))
        #expect(
            try await client.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 10)
                == Data("USER alice 0 * :Alice\r\n".utf8)
        )
        peer.closeWrite()
        #expect(try await client.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 10) == Data("partial".utf8))
        #expect(try await client.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 10) == nil)
        client.cancel()
        await server.stop()
    }

    @Test func delimitedReadsWithCompletionHandlersKeepTheirOrder() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let lines = Recorder<String?>()
        for _ in 0..<3 {
            client.readData(upToAndIncluding: Data("\n".utf8), maxLength: 64, timeout: 10) { data, error in
                #expect(error == nil)
                lines.append(data.map { String(decoding: $0, as: UTF8.self) })
            }
        }
        try await peer.write("one\ntwo\n")
        peer.closeWrite()
        #expect(await eventually { lines.values.count == 3 })
        #expect(lines.values == ["one\n", "two\n", nil])
        client.cancel()
        await server.stop()
    }

    @Test func overlongLineFailsAndLosesNothing() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let line = String(repeating: "x", count: 600) + "\r\n"

        try await peer.write(line)
        await expectStreamError(.delimiterNotFound) {
            try await client.readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 512, timeout: 10)
        }
        #expect(try await client.readText(count: line.utf8.count) == line)
        client.cancel()
        await server.stop()
    }

    @Test func cancellingTheWaitingSwiftTaskKeepsTheBytes() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()

        let waiting = Task { try await client.readData(ofMinLength: 10, maxLength: 10, timeout: 0) }
        try await peer.write("12345")
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        let result = await waiting.result
        #expect(throws: StreamTaskError.self) { try result.get() }
        try await peer.write("67890")
        #expect(try await client.readText(count: 10) == "1234567890")
        client.cancel()
        await server.stop()
    }

    /// A read's cancellation can come before it is submitted, while it is on its way to the
    /// loop, while it waits there or in the lending, or after it completed: whichever, its
    /// caller gets the bytes or a cancellation, no read hangs, and no byte is lost or read twice.
    @Test(arguments: [false, true])
    func readsCancelledAtAnyPointLoseNothingAndNoneHangs(onTheExecutor: Bool) async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let executor = onTheExecutor ? client.executor : nil
        var sent: [UInt8] = []
        var received: [UInt8] = []
        // For the first 200 rounds nothing comes, so every read must end by its cancellation.
        for round in 0..<400 {
            if round >= 200 && round % 3 == 0 {
                let byte = UInt8(truncatingIfNeeded: round)
                try await peer.write(Data([byte]), timeout: 10)
                sent.append(byte)
            }
            let reader = Task(executorPreference: executor) {
                try await client.readData(ofMinLength: 1, maxLength: 64, timeout: 10)
            }
            // Cancelled at once, or after the reader got under way.
            for _ in 0..<(round % 4) { await Task.yield() }
            reader.cancel()
            switch await reader.result {
            case .success(let (data, _)):
                received += data ?? Data()
            case .failure(let error):
                // A read that hung would fail with its timeout instead.
                #expect((error as? StreamTaskError)?.code == .cancelled, "round \(round): \(error)")
            }
        }
        while received.count < sent.count {
            let (data, atEOF) = try await client.readData(ofMinLength: 1, maxLength: 64, timeout: 10)
            received += data ?? Data()
            if atEOF { break }
        }
        #expect(received == sent)
        client.cancel()
        await server.stop()
    }

    @Test func aReadLargerThanTheBufferLimitCompletes() async throws {
        let configuration = StreamSessionConfiguration.default
        configuration.inboundBufferLimit = 16 * 1024
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)

        let payload = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        peer.write(payload, timeout: 10) { _ in }
        let (data, _) = try await client.readData(ofMinLength: payload.count, maxLength: payload.count, timeout: 10)
        #expect(data == payload)

        // The same for a delimited read whose limit is past the buffer limit.
        let line = Data(repeating: 0x6C, count: 100_000) + Data("\n".utf8)
        try await peer.write(line, timeout: 10)
        #expect(try await client.readData(upToAndIncluding: Data("\n".utf8), maxLength: 200_000, timeout: 10) == line)
        try await peer.write(Data(repeating: 0x6D, count: 300_000), timeout: 10)
        await expectStreamError(.delimiterNotFound) {
            try await client.readData(upToAndIncluding: Data("\n".utf8), maxLength: 200_000, timeout: 10)
        }
        client.cancel()
        await server.stop()
    }

    @Test func aSlowReaderStopsReadingFromTheSocket() async throws {
        let configuration = StreamSessionConfiguration.default
        configuration.inboundBufferLimit = 64 * 1024
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)

        // The peer sends far more than the socket buffers and our buffer hold. Its writes stall
        // because the client stops reading once its buffer passes the limit.
        let chunk = Data(repeating: 0x61, count: 1 << 20)
        var sent = 0
        var stalled = false
        for _ in 0..<256 {
            do {
                try await peer.write(chunk, timeout: 0.5)
                sent += chunk.count
            } catch let error as StreamTaskError where error.code == .timedOut {
                stalled = true
                break
            }
        }
        #expect(stalled, "the peer never had to wait: the client buffered \(sent) bytes")
        let received = client.metrics.countOfBytesReceived
        #expect(received < 1 << 20, "the client took in \(received) bytes without reading them")
        client.cancel()
        await server.stop()
    }
}
