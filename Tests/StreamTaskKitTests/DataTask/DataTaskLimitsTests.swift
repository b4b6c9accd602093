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

/// Apple's data-task limits: `httpMaximumConnectionsPerHost` limits data tasks' connections to a
/// host (stream tasks to the same host are not counted), and `timeoutIntervalForResource`
/// bounds a data task as a whole.
@Suite(.timeLimit(.minutes(1))) struct DataTaskLimitsTests {
    @Test func aResponseThatNeverEndsRunsIntoTheResourceTimeout() async throws {
        let server = try await LoopbackServer.start()
        let configuration = StreamSessionConfiguration.default
        configuration.timeoutIntervalForResource = 2
        configuration.connectionProxyDictionary = [:]
        configuration.transportSecurity = .insecureLoopback
        let dataTask = StreamSession(configuration: configuration)
            .dataTask(with: try DataTaskTesting.request("http://127.0.0.1:\(server.port)/slow"))
        // The server sends the head and then a body that never comes. (On a slow machine the
        // timeout may strike before it even connects: the outcome is the same.)
        let answering = Task {
            var accepted = server.listener.connections.makeAsyncIterator()
            guard let peer = await accepted.next() else { return }
            // Not `readLine()`: it records an issue at the end of stream, which the timeout
            // can bring before the request is read.
            let end = Data("\r\n".utf8)
            while let line = try? await peer.readData(upToAndIncluding: end, maxLength: 512, timeout: 10), line != end {
            }
            try? await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nstart")
            _ = await peer.waitUntilCompleted()
        }
        dataTask.resume()
        let error = await dataTask.waitUntilCompleted()
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(error?.message.contains("resource timeout") == true)
        #expect((dataTask.error as? URLError)?.code == .timedOut)
        #expect(await eventually { dataTask.carrier.state == .completed }, "the connection was closed")
        answering.cancel()
        await server.stop()
    }

    @Test func aDataTaskOverTheLimitWaitsForTheHostsNextFreeSlot() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let configuration = StreamSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.connectionProxyDictionary = [:]
        configuration.transportSecurity = .insecureLoopback
        let session = StreamSession(configuration: configuration)
        let url = "http://127.0.0.1:\(server.port)/"
        let first = session.dataTask(with: try DataTaskTesting.request(url + "first"))
        let second = session.dataTask(with: try DataTaskTesting.request(url + "second"))
        first.resume()
        let firstPeer = try await server.accept(&accepted)
        #expect(try await firstPeer.readLine() == "GET /first HTTP/1.1\r\n")
        second.resume()
        // A stream task to the same host is not held back by the data tasks' limit.
        let stream = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        stream.resume()
        let streamPeer = try await server.accept(&accepted)
        try await stream.write("stream\r\n")
        #expect(try await streamPeer.readLine() == "stream\r\n")
        #expect(second.carrier.metrics.domainLookupStartDate == nil, "the second data task did not wait")

        // The first completes: the second connects.
        while try await firstPeer.readLine() != "\r\n" {}
        try await firstPeer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        firstPeer.closeWrite()
        #expect(String(decoding: try await first.bodyData(), as: UTF8.self) == "ok")
        let secondPeer = try await server.accept(&accepted)
        #expect(try await secondPeer.readLine() == "GET /second HTTP/1.1\r\n")

        for task in [firstPeer, streamPeer, secondPeer, stream] { task.cancel() }
        second.cancel()
        await server.stop()
    }
}
