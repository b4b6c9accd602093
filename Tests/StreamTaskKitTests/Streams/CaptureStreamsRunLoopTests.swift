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
import Testing

@testable import StreamTaskCore

/// Captured Foundation streams used as Darwin programs use them: scheduled in a run loop, with
/// a `StreamDelegate` that reads and writes when told, and `hasBytesAvailable` polled.
@Suite(.timeLimit(.minutes(1))) struct CaptureStreamsRunLoopTests {
    @Test func aScheduledDelegateIsToldOfEachEventAndReadsTheWholeStream() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await peer.write("greeting\n")
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        // The peer echoes what it reads, and ends its stream after ours.
        let echo = Task {
            while true {
                let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 4096, timeout: 10)
                if let data, !data.isEmpty { try await peer.write(data, timeout: 10) }
                if atEOF { break }
            }
            peer.closeWrite()
        }
        let conversation = DelegateConversation(
            input: input, output: output, line: "through the streams\n", readSize: 3)
        let ended = await conversation.runOnThreadOfItsOwn()
        #expect(ended)
        try await echo.value
        #expect(conversation.received == "greeting\nthrough the streams\n")
        // Darwin's order: opened first, bytes (again after each read that left some), the end once.
        let inputEvents = conversation.events.filter { $0.stream == "input" }.map(\.event)
        #expect(inputEvents.first == .openCompleted)
        #expect(inputEvents.last == .endEncountered)
        #expect(inputEvents.filter { $0 == .endEncountered }.count == 1)
        #expect(inputEvents.filter { $0 == .hasBytesAvailable }.count >= 29 / 3)
        let outputEvents = conversation.events.filter { $0.stream == "output" }.map(\.event)
        #expect(Array(outputEvents.prefix(2)) == [.openCompleted, .hasSpaceAvailable])
        #expect(conversation.events.allSatisfy { $0.onTheRunLoopThread })
        #expect(!conversation.events.contains { $0.event == .errorOccurred })
        await server.stop()
    }

    @Test func hasBytesAvailableSaysWhetherAReadReturnsAtOnce() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        let streams = UncheckedStreams(input: input, output: output)
        streams.input.open()
        // Nothing has come: a read would wait.
        #expect(!streams.input.hasBytesAvailable)
        #expect(streams.input.streamStatus == .open)
        try await peer.write("abc")
        #expect(await eventually { streams.input.hasBytesAvailable })
        let text = await offCooperativePool { () -> String in
            var buffer = [UInt8](repeating: 0, count: 8)
            let count = streams.input.read(&buffer, maxLength: buffer.count)
            return String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
        }
        #expect(text == "abc")
        #expect(!streams.input.hasBytesAvailable)
        // The peer's end shows in the status before any read asks.
        peer.closeWrite()
        #expect(await eventually { streams.input.streamStatus == .atEnd })
        #expect(!streams.input.hasBytesAvailable)
        var byte: UInt8 = 0
        #expect(streams.input.read(&byte, maxLength: 1) == 0)
        streams.input.close()
        streams.output.close()
        await server.stop()
    }

    @Test func readingAheadStopsAtItsLimitUntilTheReaderTakesBytes() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        let streams = UncheckedStreams(input: input, output: output)
        let stream = try #require(input as? CapturedInputStream)
        streams.input.open()
        let total = 1024 * 1024
        let writing = Task { try await peer.write(Data(repeating: 0x61, count: total), timeout: 20) }
        #expect(await eventually { stream.bytesHeld >= CapturedReadAhead.limit })
        // Time for a read-ahead that did not stop to take much more than its limit.
        try await Task.sleep(for: .milliseconds(300))
        #expect(stream.bytesHeld <= 2 * CapturedReadAhead.limit)
        let count = await offCooperativePool { () -> Int in
            var buffer = [UInt8](repeating: 0, count: 10_000)
            var count = 0
            while count < total {
                let read = streams.input.read(&buffer, maxLength: buffer.count)
                if read <= 0 { break }
                count += read
            }
            return count
        }
        #expect(count == total)
        try await writing.value
        streams.input.close()
        streams.output.close()
        await server.stop()
    }
}

/// A Darwin-style stream delegate on a thread of its own: it schedules both streams in that
/// thread's run loop, writes `line` and ends its output when there is space, and reads at
/// most `readSize` bytes per `hasBytesAvailable` until the end. Its state is touched on that
/// thread only until ``runOnThreadOfItsOwn()`` returns.
final class DelegateConversation: NSObject, StreamDelegate, @unchecked Sendable {
    struct Event {
        let stream: String
        let event: Stream.Event
        let onTheRunLoopThread: Bool
    }

    let input: InputStream
    let output: OutputStream
    private var line: [UInt8]
    private let readSize: Int
    private var thread: Thread?
    private(set) var events: [Event] = []
    private var bytes: [UInt8] = []
    private var ended = false
    var received: String { String(decoding: bytes, as: UTF8.self) }

    init(input: InputStream, output: OutputStream, line: String, readSize: Int) {
        self.input = input
        self.output = output
        self.line = Array(line.utf8)
        self.readSize = readSize
    }

    /// Runs the conversation; whether the input's end came within 20 s.
    func runOnThreadOfItsOwn() async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                for stream in [input, output] as [Stream] {
                    stream.delegate = self
                    stream.schedule(in: .current, forMode: .default)
                    stream.open()
                }
                let deadline = Date(timeIntervalSinceNow: 20)
                while !ended && Date() < deadline {
                    RunLoop.current.run(until: min(deadline, Date(timeIntervalSinceNow: 0.05)))
                }
                input.close()
                continuation.resume(returning: ended)
            }
            self.thread = thread
            thread.start()
        }
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        let name = aStream === input ? "input" : "output"
        events.append(Event(stream: name, event: eventCode, onTheRunLoopThread: Thread.current === thread))
        switch eventCode {
        case .hasSpaceAvailable where !line.isEmpty:
            let written = output.write(line, maxLength: line.count)
            if written > 0 { line.removeFirst(written) }
            if line.isEmpty { output.close() }
        case .hasBytesAvailable:
            var buffer = [UInt8](repeating: 0, count: readSize)
            let count = input.read(&buffer, maxLength: readSize)
            if count > 0 { bytes += buffer[0..<count] }
        case .endEncountered, .errorOccurred:
            ended = true
        default:
            break
        }
    }
}
