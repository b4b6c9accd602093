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
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Data tasks against `Peers/http_peer.py`, which writes each response exactly as the test
/// needs it (in one packet, chunked, with no framing at all, …).
@Suite(.timeLimit(.minutes(1))) struct DataTaskTests {
    private func peer<T>(_ mode: String, _ body: (PythonPeer) async throws -> T) async throws -> T {
        try await DataTaskTesting.withPeer("http_peer.py", mode: mode, body)
    }

    @Test func bytesInTheSamePacketAsThe101HeadReachTheStream() async throws {
        try await peer("upgrade-with-trailing") { server in
            let session = DataTaskTesting.session()
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/up?x=1"))
            let stream = try await dataTask.becomeStream()
            #expect((stream.response as? HTTPURLResponse)?.statusCode == 101)
            // The server's first bytes after the head come first, then our own echoed ones.
            #expect(try await stream.readText(count: 12) == "EARLY-BYTES\n")
            try await stream.write("ping\n")
            #expect(try await stream.readText(count: 5) == "ping\n")
            stream.closeWrite()
            #expect(try await stream.readToEnd() == "")
            #expect(await server.readLine() == "request GET /up?x=1 HTTP/1.1")
            #expect(await server.readLine() == "host 127.0.0.1:\(server.port)")
        }
    }

    @Test func a2xxBecomesAStreamWithoutLosingTheBytesAfterItsHead() async throws {
        try await peer("ok-then-stream") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            let response = try await dataTask.receiveResponse()
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Server") == "http_peer")
            let stream = try await dataTask.becomeStream()
            #expect(try await stream.readText(count: 12) == "FIRST-BYTES\n")
            try await stream.write("after\n")
            #expect(try await stream.readText(count: 6) == "after\n")
            stream.cancel()
        }
    }

    @Test func suspendingADataTaskSuspendsTheStreamItBecomes() async throws {
        try await peer("ok-then-stream") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            #expect(try await dataTask.receiveResponse().statusCode == 200)
            dataTask.suspend()
            #expect(dataTask.state == .suspended)
            let stream = try await dataTask.becomeStream()
            #expect(stream.state == .suspended)
            let got = stream.recordedRead(count: 12)
            #expect(try await stream.onLoop { $0.machine.operations.count } == 1, "the read waits")
            dataTask.resume()
            #expect(await eventually { got.values == ["FIRST-BYTES\n"] })
            stream.cancel()
        }
    }

    @Test func withoutADelegateTheResponseWaitsForTheCallersDecision() async throws {
        try await peer("ok-then-stream") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            #expect(await eventually { dataTask.response != nil })
            #expect(dataTask.state == .running, "nobody decided yet")
            let stream = try await dataTask.becomeStream()
            #expect(try await stream.readText(count: 12) == "FIRST-BYTES\n")
            stream.cancel()
        }
    }

    @Test func allowDeliversAContentLengthBodyAndSendsTheRequestBody() async throws {
        try await peer("echo-body-length") { server in
            let request = try DataTaskTesting.request(
                "http://127.0.0.1:\(server.port)/post", method: "POST", body: "a request body")
            let session = DataTaskTesting.session()
            let dataTask = session.dataTask(with: request)
            #expect(dataTask.countOfBytesExpectedToSend == Int64("a request body".utf8.count))
            let response = try await dataTask.receiveResponse()
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            let length = Int64("you sent: a request body".utf8.count)
            #expect(dataTask.countOfBytesExpectedToReceive == length)
            #expect(dataTask.progress.totalUnitCount == length)
            let body = try await dataTask.bodyData()
            #expect(String(decoding: body, as: UTF8.self) == "you sent: a request body")
            #expect(await dataTask.waitUntilCompleted() == nil)
            #expect(dataTask.progress.completedUnitCount == length)
            #expect(dataTask.progress.fractionCompleted == 1)
            #expect(dataTask.state == .completed)
            #expect(await server.readLine() == "request POST /post HTTP/1.1")
            #expect(await eventually { session.allTasks.isEmpty }, "the connection is closed after the body")
        }
    }

    @Test func iteratingTheBodyOfATaskNobodyResumedStartsIt() async throws {
        try await peer("echo-body-length") { server in
            let request = try DataTaskTesting.request(
                "http://127.0.0.1:\(server.port)/post", method: "POST", body: "abc")
            let dataTask = DataTaskTesting.session().dataTask(with: request)
            let reading = Task {
                var body = Data()
                for try await chunk in dataTask.body { body.append(chunk) }
                return body
            }
            // Before, the request never went out and the loop waited for good.
            #expect(await eventually { dataTask.state == .completed }, "the task ran and completed")
            dataTask.cancel()
            #expect(String(decoding: try await reading.value, as: UTF8.self) == "you sent: abc")
        }
    }

    @Test func allowEndsAChunkedBodyAtItsLastChunkOnAConnectionKeptOpen() async throws {
        try await peer("chunked") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            var chunks: [String] = []
            for try await chunk in dataTask.body {
                chunks.append(String(decoding: chunk, as: UTF8.self))
            }
            #expect(chunks.joined() == "first,second,third")
            #expect((dataTask.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Peer") == "chunked")
            #expect(dataTask.error == nil)
        }
    }

    @Test func aHeadWithBareLineFeedsIsRead() async throws {
        try await peer("bare-lf") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            var body = Data()
            for try await chunk in dataTask.body {
                body.append(chunk)
            }
            #expect(String(decoding: body, as: UTF8.self) == "ab\ncd\n")
            #expect((dataTask.response as? HTTPURLResponse)?.statusCode == 200)
            #expect((dataTask.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Peer") == "bare-lf")
            #expect(dataTask.error == nil)
        }
    }

    @Test func theDelegateDecidesAndHearsOfTheNewStreamTask() async throws {
        try await peer("upgrade-with-trailing") { server in
            let delegate = DisposingDelegate(.becomeStream)
            let session = DataTaskTesting.session(delegate: delegate)
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            #expect(await dataTask.waitUntilCompleted() == nil)
            let stream = try #require(await delegate.becameStream())
            #expect(
                delegate.events.values.prefix(3) == [
                    "response 101", "became stream #\(stream.taskIdentifier)", "completed nil",
                ])
            #expect(try await stream.readText(count: 12) == "EARLY-BYTES\n")
            stream.cancel()
        }
    }

    @Test func theDelegatesAsyncFormDecidesToo() async throws {
        try await peer("upgrade-with-trailing") { server in
            let delegate = AsyncDisposingDelegate()
            let session = DataTaskTesting.session(delegate: delegate)
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            // Optional, as Apple's: Darwin code chains through it.
            #expect(dataTask.originalRequest?.url?.port == server.port)
            #expect(dataTask.currentRequest?.url == dataTask.originalRequest?.url)
            dataTask.resume()
            #expect(await dataTask.waitUntilCompleted() == nil)
            #expect(await eventually { delegate.events.values.count == 2 })
            let stream = try #require(delegate.stream.withLockedValue { $0 })
            #expect(delegate.events.values == ["response 101", "became stream #\(stream.taskIdentifier)"])
            #expect(try await stream.readText(count: 12) == "EARLY-BYTES\n")
            stream.cancel()
        }
    }

    @Test func theDelegateCancels() async throws {
        try await peer("chunked") { server in
            let delegate = DisposingDelegate(.cancel)
            let session = DataTaskTesting.session(delegate: delegate)
            let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            dataTask.resume()
            let error = await dataTask.waitUntilCompleted()
            #expect(error?.code == .cancelled, "\(String(describing: error))")
            #expect(await eventually { session.allTasks.isEmpty })
            // The delegate's callbacks come on its queue: only once the last has come is the
            // absence of data callbacks a finding.
            #expect(await eventually { delegate.events.values.contains { $0.hasPrefix("completed") } })
            #expect(!delegate.events.values.contains { $0.hasPrefix("data") }, "no body after a cancel")
        }
    }

    @Test func aServerThatDoesNotSpeakHTTPFailsTheTask() async throws {
        try await peer("not-http") { server in
            let dataTask = DataTaskTesting.session().dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            await expectStreamError(.httpProtocolError) { try await dataTask.receiveResponse() }
            #expect(await dataTask.waitUntilCompleted()?.code == .httpProtocolError)
        }
    }

    @Test func aRefusedConnectionFailsTheTaskAndLeavesTheSession() async throws {
        let closed = try ClosedPort()
        let session = DataTaskTesting.session()
        let dataTask = session.dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(closed.port)/"))
        #expect(session.allTasks.count == 1, "the stream task that will carry it")
        await expectStreamError(.connectionRefused) { try await dataTask.receiveResponse() }
        #expect(await dataTask.waitUntilCompleted()?.code == .connectionRefused)
        #expect(await eventually { session.allTasks.isEmpty })
        await expectStreamError(.connectionRefused) { try await dataTask.becomeStream() }
    }

    @Test func aURLThatIsNotHTTPFailsOnResume() async throws {
        let session = DataTaskTesting.session()
        let dataTask = session.dataTask(with: try DataTaskTesting.request("ftp://127.0.0.1/file"))
        await expectStreamError(.invalidArgument) { try await dataTask.receiveResponse() }
        #expect(session.allTasks.isEmpty)
    }

    @Test func becomingAStreamAfterAllowingFails() async throws {
        try await peer("echo-body-length") { server in
            let request = try DataTaskTesting.request("http://127.0.0.1:\(server.port)/", method: "POST", body: "x")
            let dataTask = DataTaskTesting.session().dataTask(with: request)
            _ = try await dataTask.receiveResponse()
            dataTask.allow()
            await expectStreamError(.invalidArgument) { try await dataTask.becomeStream() }
            #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "you sent: x")
        }
    }
}

/// Answers every response with one disposition and records the data-task callbacks.
final class DisposingDelegate: StreamSessionDataDelegate {
    let disposition: StreamDataTask.ResponseDisposition
    let events = Recorder<String>()
    private let stream = NIOLockedValueBox<StreamTask?>(nil)

    init(_ disposition: StreamDataTask.ResponseDisposition) {
        self.disposition = disposition
    }

    func urlSession(
        _ session: StreamSession,
        dataTask: StreamSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (StreamSession.ResponseDisposition) -> Void
    ) {
        events.append("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        completionHandler(disposition)
    }

    func urlSession(_ session: StreamSession, dataTask: StreamSessionDataTask, didReceive data: Data) {
        events.append("data \(data.count)")
    }

    func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didBecome streamTask: StreamSessionStreamTask
    ) {
        stream.withLockedValue { $0 = streamTask }
        events.append("became stream #\(streamTask.taskIdentifier)")
    }

    func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?) {
        events.append("completed \(error.map { "\($0.streamTaskError.map { "\($0)" } ?? "\($0)")" } ?? "nil")")
    }

    /// The stream task the data task became, once the callbacks so far have been delivered.
    func becameStream() async -> StreamTask? {
        _ = await eventually { self.events.values.contains { $0.hasPrefix("completed") } }
        return stream.withLockedValue { $0 }
    }
}

/// Decides with the async form of the response method, as Swift imports Apple's.
final class AsyncDisposingDelegate: StreamSessionDataDelegate {
    let events = Recorder<String>()
    let stream = NIOLockedValueBox<StreamTask?>(nil)

    func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didReceive response: URLResponse
    ) async -> StreamSession.ResponseDisposition {
        events.append("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        return .becomeStream
    }

    func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didBecome streamTask: StreamSessionStreamTask
    ) {
        stream.withLockedValue { $0 = streamTask }
        events.append("became stream #\(streamTask.taskIdentifier)")
    }
}
