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

/// `captureStreams()`: the connection handed over as Foundation streams (read and written on
/// threads of their own, since they block) or as an async byte sequence and writer.
@Suite(.timeLimit(.minutes(1))) struct CaptureStreamsTests {
    /// A server that sends `greeting` on accept, then echoes.
    private func echoServer(greeting: String = "") async throws -> (LoopbackServer, Task<Void, Never>) {
        let server = try await LoopbackServer.start(session: StreamSession(configuration: .init(proxy: .direct)))
        let serving = Task {
            await withDiscardingTaskGroup { group in
                for await connection in server.listener.connections {
                    group.addTask {
                        do {
                            if !greeting.isEmpty { try await connection.write(greeting) }
                            while true {
                                let (data, atEOF) = try await connection.readData(
                                    ofMinLength: 1, maxLength: 4096, timeout: 10)
                                if let data, !data.isEmpty { try await connection.write(data, timeout: 10) }
                                if atEOF { break }
                            }
                            connection.closeWrite()
                        } catch {
                            connection.cancel()
                        }
                    }
                }
            }
        }
        return (server, serving)
    }

    private func session(limit: Int = .max, delegate: (any StreamSessionDelegate)? = nil) -> StreamSession {
        StreamSession(configuration: .init(maximumConnectionsPerHost: limit, proxy: .direct), delegate: delegate)
    }

    @Test func foundationStreamsReadAndWriteTheConnectionAndTheTaskLeavesTheSession() async throws {
        let (server, serving) = try await echoServer(greeting: "greeting\n")
        let session = session(limit: 1)
        let task = session.loopbackTask(port: server.port)
        try await task.write("queued before the capture\n")
        let (input, output) = try await task.captureFoundationStreams(timeout: 10)
        #expect(task.state == .completed)
        #expect(session.allTasks.isEmpty)
        await expectStreamError(.streamsCaptured) { try await task.write("x") }

        // The slot is free: with a limit of one connection per host, another task connects.
        let other = session.loopbackTask(port: server.port)
        try await other.write("other\n")
        #expect(try await other.readText(count: 9) == "greeting\n")
        other.cancel()

        let streams = UncheckedStreams(input: input, output: output)
        let received = await offCooperativePool { streams.converse() }
        #expect(received == "greeting\nqueued before the capture\nthrough the streams\n")
        #expect(streams.statusAfterClose == [.closed, .closed])
        await server.stop()
        await serving.value
    }

    @Test func theDelegateGetsTheStreamsAndUnreadBytesGoToTheInputStream() async throws {
        let (server, serving) = try await echoServer(greeting: "unread greeting\n")
        let delegate = StreamCapturingDelegate()
        let task = session(delegate: delegate).loopbackTask(port: server.port)
        // Wait until the greeting is in the task's buffer, without reading it.
        #expect(await eventually { task.metrics.countOfBytesReceived == 16 })
        task.captureStreams()
        await expectStreamError(.streamsCaptured) { try await task.readText(count: 1) }
        let streams = try #require(await delegate.streams())
        let text = await offCooperativePool { () -> String in
            streams.input.open()
            var buffer = [UInt8](repeating: 0, count: 16)
            var all: [UInt8] = []
            while all.count < 16 {
                let count = streams.input.read(&buffer, maxLength: buffer.count - all.count)
                if count <= 0 { break }
                all += buffer[0..<count]
            }
            streams.input.close()
            streams.output.close()
            return String(decoding: all, as: UTF8.self)
        }
        #expect(text == "unread greeting\n")
        await server.stop()
        await serving.value
    }

    @Test func asyncHandoverReadsChunksAndWrites() async throws {
        let (server, serving) = try await echoServer()
        let session = session()
        let task = session.loopbackTask(port: server.port)
        let (bytes, writer) = try await task.captureByteStreams(timeout: 10)
        #expect(session.allTasks.isEmpty)
        try await writer.write(Data("one ".utf8))
        try await writer.write(Data("two".utf8))
        writer.finish()
        var received = Data()
        for try await chunk in bytes {
            received.append(chunk)
        }
        #expect(String(decoding: received, as: UTF8.self) == "one two")
        await server.stop()
        await serving.value
    }

    @Test func aStreamUsedOnTheEventLoopFailsInsteadOfDeadlocking() async throws {
        let (server, serving) = try await echoServer()
        let task = session().loopbackTask(port: server.port)
        let (input, output) = try await task.captureFoundationStreams(timeout: 10)
        let streams = UncheckedStreams(input: input, output: output)
        let result = try await task.eventLoop.submit { () -> Int in
            streams.output.open()
            return streams.output.write([1, 2, 3], maxLength: 3)
        }.get()
        #expect(result == -1)
        #expect(streams.output.streamStatus == .error)
        #expect((streams.output.streamError as? StreamTaskError)?.code == .invalidArgument)
        // A read with nothing read ahead would wait: refused the same way.
        let read = try await task.eventLoop.submit { () -> Int in
            streams.input.open()
            var byte: UInt8 = 0
            return streams.input.read(&byte, maxLength: 1)
        }.get()
        #expect(read == -1)
        #expect(streams.input.streamStatus == .error)
        #expect((streams.input.streamError as? StreamTaskError)?.code == .invalidArgument)
        streams.input.close()
        await server.stop()
        await serving.value
    }
}

/// Foundation's streams are not Sendable; each test hands them to one thread at a time.
final class UncheckedStreams: @unchecked Sendable {
    let input: InputStream
    let output: OutputStream
    private(set) var statusAfterClose: [Stream.Status] = []

    init(input: InputStream, output: OutputStream) {
        self.input = input
        self.output = output
    }

    /// Writes a line, ends the output, and reads everything until the end of the stream
    /// (blocking: run it on a thread of its own).
    func converse() -> String {
        input.open()
        output.open()
        let line = Array("through the streams\n".utf8)
        guard output.write(line, maxLength: line.count) == line.count else {
            return "write failed: \(String(describing: output.streamError))"
        }
        output.close()
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 7)
        while true {
            let count = input.read(&buffer, maxLength: buffer.count)
            if count < 0 { return "read failed: \(String(describing: input.streamError))" }
            if count == 0 { break }
            all += buffer[0..<count]
        }
        let ended = input.streamStatus == .atEnd && !input.hasBytesAvailable
        input.close()
        statusAfterClose = [input.streamStatus, output.streamStatus]
        return ended ? String(decoding: all, as: UTF8.self) : "not at end"
    }
}

/// Keeps the streams a delegate was given.
final class StreamCapturingDelegate: StreamSessionStreamDelegate {
    private let captured = NIOLockedValueBox<UncheckedStreams?>(nil)

    func urlSession(
        _ session: StreamSession, streamTask: StreamSessionStreamTask, didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {
        let streams = UncheckedStreams(input: inputStream, output: outputStream)
        captured.withLockedValue { $0 = streams }
    }

    func streams() async -> UncheckedStreams? {
        _ = await eventually { self.captured.withLockedValue { $0 } != nil }
        return captured.withLockedValue { $0 }
    }
}
