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
import StreamTaskTestSupport
import Testing

@testable import StreamTaskCore

/// Captured streams keep the run loop they are scheduled in running, as a Darwin stream's
/// run-loop source does, until they are closed: a thread that only calls
/// `RunLoop.current.run()` hears every event, and its `run()` returns once the streams are
/// closed.
@Suite(.timeLimit(.minutes(1))) struct CaptureStreamsRunningRunLoopTests {
    /// Writes `line` when there is space, reads until the end, then closes both streams, as a
    /// Darwin client would; its state is touched on the run loop's thread only.
    final class ClosingDelegate: NSObject, StreamDelegate, @unchecked Sendable {
        let input: InputStream
        let output: OutputStream
        private var line = Array("through a running run loop\n".utf8)
        private let record = NIOLockedValueBox<(events: [Stream.Event], bytes: [UInt8])>(([], []))

        init(input: InputStream, output: OutputStream) {
            self.input = input
            self.output = output
        }

        var events: [Stream.Event] { record.withLockedValue { $0.events } }
        var received: String { record.withLockedValue { String(decoding: $0.bytes, as: UTF8.self) } }

        func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
            record.withLockedValue { $0.events.append(eventCode) }
            switch eventCode {
            case .hasSpaceAvailable where !line.isEmpty:
                let written = output.write(line, maxLength: line.count)
                if written > 0 { line.removeFirst(written) }
            case .hasBytesAvailable:
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = input.read(&buffer, maxLength: buffer.count)
                if count > 0 { record.withLockedValue { $0.bytes += buffer[0..<count] } }
            case .endEncountered, .errorOccurred:
                input.close()
                output.close()
            default:
                break
            }
        }
    }

    @Test func aThreadThatOnlyRunsItsRunLoopHearsFromItsStreamsUntilItClosesThem() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        let delegate = ClosingDelegate(input: input, output: output)
        let thread = RunLoopOnlyThread {
            for stream in [delegate.input, delegate.output] as [Stream] {
                stream.delegate = delegate
                stream.schedule(in: .current, forMode: .default)
                stream.open()
            }
        }
        // The peer answers the line after a pause, long enough for a run loop without sources
        // to have returned, then ends its stream.
        let line = try await peer.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
        try await Task.sleep(for: .milliseconds(200))
        try await peer.write("answer to " + String(decoding: line ?? Data(), as: UTF8.self))
        peer.closeWrite()
        let returned = await offCooperativePool {
            thread.waitForRunToReturn(within: 20) { runLoop in
                for stream in [delegate.input, delegate.output] as [Stream] {
                    stream.remove(from: runLoop, forMode: .default)
                }
            }
        }
        #expect(delegate.received == "answer to through a running run loop\n")
        #expect(delegate.events.first == .openCompleted)
        #expect(delegate.events.last == .endEncountered)
        // Closed, the streams let the run loop run dry: run() returned without being woken.
        #expect(returned)
        #expect((thread.runTime ?? 0) >= 0.2)
        await server.stop()
    }

    /// As a Darwin stream's source does, a delivery ends `run(mode:before:)`: a thread that
    /// turns its run loop until its delegate has heard the answer, the loop Apple's
    /// documentation shows (`while !done && run(mode:before:)`), stops turning once it has,
    /// with the streams still open, rather than at the limit date.
    @Test func eachDeliveryEndsOneTurnOfTheRunLoop() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        let delegate = ClosingDelegate(input: input, output: output)
        let outcome = NIOLockedValueBox<(heard: String, seconds: Double)?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let thread = Thread {
            for stream in [delegate.input, delegate.output] as [Stream] {
                stream.delegate = delegate
                stream.schedule(in: .current, forMode: .default)
                stream.open()
            }
            let start = Date()
            while !delegate.received.hasSuffix("\n")
                && RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 20))
            {}
            outcome.withLockedValue { $0 = (delegate.received, Date().timeIntervalSince(start)) }
            for stream in [delegate.input, delegate.output] as [Stream] { stream.close() }
            ended.signal()
        }
        thread.start()
        let line = try await peer.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
        try await Task.sleep(for: .milliseconds(200))
        try await peer.write("answer to " + String(decoding: line ?? Data(), as: UTF8.self))
        let finished = await offCooperativePool { ended.wait(timeout: .now() + 30) == .success }
        #expect(finished)
        let (heard, seconds) = try #require(outcome.withLockedValue { $0 })
        #expect(heard == "answer to through a running run loop\n")
        // Woken by the answer's delivery, not by the limit 20 s away.
        #expect(seconds < 15, "run(mode:before:) returned after \(seconds) s")
        await server.stop()
    }
}
