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

    @Test func openedStreamsReleasedUnclosedEndTheConnection() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        do {
            let (input, output) = try await client.captureFoundationStreams(timeout: 10)
            let streams = UncheckedStreams(input: input, output: output)
            streams.input.open()
            streams.output.open()
            try await peer.write("unread")
            #expect(await eventually { streams.input.hasBytesAvailable })
        }
        // Nothing holds the streams any more: the peer reads the end of the stream.
        let (_, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 10, timeout: 10)
        #expect(atEOF)
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
