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
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Apple's `timeoutIntervalForRequest` for data tasks is an idle timeout: the server must send
/// something at least that often while the task waits for the response and its body. Against
/// `Peers/http_peer.py`, which stalls or trickles as the test asks.
///
/// The timeout is 3 s, not less: it also bounds connecting and the server's first answer,
/// which on a loaded machine (the whole suite in parallel) can take over a second.
@Suite(.timeLimit(.minutes(1))) struct DataTaskIdleTimeoutTests {
    static let timeout: TimeInterval = 3

    /// A session whose data tasks wait `timeout` seconds for the server at most.
    static func session(timeout: TimeInterval) -> StreamSession {
        let configuration = StreamSessionConfiguration.default
        configuration.timeoutIntervalForRequest = timeout
        // Without an idle timeout, a stalled test ends here, with another message, not by hanging.
        configuration.timeoutIntervalForResource = 30
        configuration.connectionProxyDictionary = [:]
        configuration.transportSecurity = .insecureLoopback
        return StreamSession(configuration: configuration)
    }

    /// The failure, as each of Apple's spellings sees it: a `URLError` `.timedOut`, in
    /// `NSURLErrorDomain` with `NSURLErrorTimedOut`.
    static func expectAppleTimeout(_ dataTask: StreamDataTask) {
        #expect((dataTask.error as? URLError)?.code == .timedOut, "\(String(describing: dataTask.error))")
        let nsError = dataTask.error.map { $0 as NSError }
        #expect(nsError?.domain == NSURLErrorDomain)
        #expect(nsError?.code == NSURLErrorTimedOut)
    }

    @Test func aBodyThatStallsMidwayTimesOut() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "stall-mid-body") { server in
            let dataTask = Self.session(timeout: Self.timeout).dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            #expect(try await dataTask.receiveResponse().expectedContentLength == 100)
            var chunks = dataTask.body.makeAsyncIterator()
            var received = Data()
            let error = await expectStreamError(.timedOut) {
                while let chunk = try await chunks.next() { received += chunk }
            }
            #expect(String(decoding: received, as: UTF8.self) == "the start", "the body's start arrived first")
            #expect(error?.message.contains("more of the response body") == true, "\(String(describing: error))")
            #expect(error?.message.contains("timeoutIntervalForRequest") == true)
            Self.expectAppleTimeout(dataTask)
            // The task closed the connection: the peer saw its end.
            let said = await server.finish()
            #expect(said.contains("the client closed"), "\(said)")
        }
    }

    @Test func aServerThatNeverAnswersTimesOutWaitingForTheHead() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "silent") { server in
            let dataTask = Self.session(timeout: Self.timeout).dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            let error = await expectStreamError(.timedOut) { _ = try await dataTask.receiveResponse() }
            #expect(error?.message.contains("waited for the response ") == true, "\(String(describing: error))")
            Self.expectAppleTimeout(dataTask)
            let said = await server.finish()
            #expect(said == ["request GET / HTTP/1.1", "host 127.0.0.1:\(server.port)", "the client closed", "done"])
        }
    }

    /// One byte every 0.1 s for at least 9 s: the body as a whole takes 1.5 times the timeout,
    /// but the server is never silent for long, so the task completes.
    ///
    /// The timeout here is 6 s: the peer is a separate process, and with the whole suite running
    /// beside it on two cores, it has once been starved for 3 s between two bytes (CI, stop 29).
    @Test func aBodyThatTricklesSlowerThanTheTimeoutButNeverStopsCompletes() async throws {
        let timeout: TimeInterval = 6
        let server = try await PythonPeer.start(
            script: "http_peer.py", mode: "trickle-body", arguments: ["0.1", "\(1.5 * timeout)"])
        let dataTask = Self.session(timeout: timeout).dataTask(
            with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
        let body = try await dataTask.bodyData()
        #expect(dataTask.error == nil)
        #expect(await server.readLine() == "request GET / HTTP/1.1")
        #expect(await server.readLine() == "host 127.0.0.1:\(server.port)")
        let sent = try #require(await server.readLine())
        #expect(sent.hasPrefix("sent \(body.count) bytes in "), "the whole body arrived: \(sent)")
        #expect(body == Data(repeating: UInt8(ascii: "x"), count: body.count))
        #expect(body.count >= 10, "\(sent)")
        _ = await server.finish()
    }

    /// The wait is the server's only: not while the owner decides on the head, nor while the
    /// task is suspended (Apple: a suspended task "is not subject to timeouts").
    ///
    /// The peer is a process of its own that answers the request at once: a peer in this
    /// process, on the cooperative pool, has taken over 6 s to answer with the whole suite
    /// running beside it, and the wait for the head is timed.
    @Test func neitherDecidingNorASuspensionIsTimed() async throws {
        let timeout: TimeInterval = 4
        try await DataTaskTesting.withPeer("http_peer.py", mode: "rest-when-told") { server in
            let dataTask = Self.session(timeout: timeout).dataTask(
                with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/"))
            #expect(try await dataTask.receiveResponse().statusCode == 200)
            // Waiting out the timeout twice over, once deciding and once suspended, with the
            // server silent all along: only the passing of time can show that no timer ran.
            try await Task.sleep(for: .seconds(timeout + 1))
            dataTask.suspend()
            dataTask.allow()
            try await Task.sleep(for: .seconds(timeout + 1))
            #expect(dataTask.error == nil)
            server.closeInput()
            dataTask.resume()
            #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "first-last")
            #expect(dataTask.error == nil)
        }
    }
}
