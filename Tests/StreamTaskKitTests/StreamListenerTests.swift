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

/// The listener over real sockets: binding, limits, shutdown, and a client nobody here wrote.
@Suite(.timeLimit(.minutes(1))) struct StreamListenerTests {
    @Test(arguments: ["127.0.0.1", "::1"])
    func portZeroBindsAFreePortAndReportsIt(host: String) async throws {
        let listener = StreamListener(host: host, port: 0)
        try await listener.start()
        let port = try #require(listener.port)
        #expect(port > 0)
        #expect(listener.localAddress?.ipAddress == host)

        var accepted = listener.connections.makeAsyncIterator()
        let client = StreamSession().streamTask(withHostName: host, port: port)
        client.resume()
        try await client.write("hi")
        let peer = try #require(await accepted.next())
        #expect(try await peer.readText(count: 2) == "hi")
        #expect(peer.metrics.remoteAddress == host)
        #expect(peer.state == .running)
        client.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func aTakenPortFailsToBindClearly() async throws {
        let server = try await LoopbackServer.start()
        let second = StreamListener(host: "127.0.0.1", port: server.port)
        let error = await expectStreamError(.bindFailed) { try await second.start() }
        #expect(error?.description.contains("127.0.0.1:\(server.port)") == true)
        #expect(error?.errno == EADDRINUSE)
        #expect(
            error?.description.components(separatedBy: "errno").count == 2,
            "errno appears once: \(error.map { "\($0)" } ?? "")")
        await server.stop()
    }

    /// Given to the resolver, 70000 would listen on port 4464 (its low 16 bits).
    @Test(arguments: [-1, 65536, 70000])
    func aPortOutsideTCPsRangeIsRefused(port: Int) async throws {
        let listener = StreamListener(host: "127.0.0.1", port: port)
        let error = await expectStreamError(.invalidArgument) { try await listener.start() }
        #expect(error?.message.contains("out of range") == true)
        #expect(listener.port == nil)
    }

    @Test func theConnectionLimitHoldsBackNewConnectionsUntilOneEnds() async throws {
        let server = try await LoopbackServer.start(maximumConnections: 1)
        var accepted = server.listener.connections.makeAsyncIterator()
        let session = StreamSession()

        let first = session.loopbackTask(port: server.port)
        try await first.write("1")
        let firstPeer = try await server.accept(&accepted)
        #expect(try await firstPeer.readText(count: 1) == "1")

        // The kernel completes the second handshake, but we do not accept it yet.
        let second = session.loopbackTask(port: server.port)
        try await second.write("2")
        try await firstPeer.write("served")
        #expect(try await first.readText(count: 6) == "served")
        #expect(server.listener.openConnections.count == 1)

        // A connection counts until both ends are done with it.
        first.cancel()
        #expect(try await firstPeer.readToEnd() == "")
        #expect(server.listener.openConnections.count == 1)
        firstPeer.closeWrite()
        let secondPeer = try await server.accept(&accepted)
        #expect(try await secondPeer.readText(count: 1) == "2")
        #expect(
            await eventually { server.listener.openConnections.map(\.taskIdentifier) == [secondPeer.taskIdentifier] })
        second.cancel()
        await server.stop()
    }

    @Test func acceptedConnectionsGetTheSendBufferAskedFor() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0, sendBufferSize: 16 * 1024)
        try await listener.start()
        let port = try #require(listener.port)
        let client = StreamSession(configuration: .init(proxy: .direct)).loopbackTask(port: port)
        try await client.write("x")
        var accepted = listener.connections.makeAsyncIterator()
        let server = try #require(await accepted.next())
        #expect(try await server.readText(count: 1) == "x")
        // The accepted socket and the listening one have the listener's port; only accepted
        // ones carry the option.
        let sizes = OpenSockets.descriptors(port: port, localOnly: true).map { fd -> Int32 in
            var size: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length)
            return size
        }
        #expect(
            sizes.contains(32 * 1024), "SO_SNDBUF of the listener's sockets: \(sizes) (Linux doubles what is asked)")
        client.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func gracefulShutdownStopsAcceptingAndWaitsForOpenConnections() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let session = StreamSession()
        let client = session.loopbackTask(port: server.port)
        try await client.write("a")
        let peer = try await server.accept(&accepted)

        let shutdown = Task { await server.listener.shutdown() }
        // New connections are refused once the listening socket is closed.
        #expect(await eventually { server.listener.localAddress == nil })
        let late = session.loopbackTask(port: server.port)
        await expectStreamError(.connectionRefused) { try await late.write("late") }
        #expect(await accepted.next() == nil, "the connections sequence ends at shutdown")

        // The open connection keeps working until it ends by itself.
        #expect(try await peer.readText(count: 1) == "a")
        try await peer.write("b")
        #expect(try await client.readText(count: 1) == "b")
        client.closeWrite()
        peer.closeWrite()
        #expect(try await peer.readToEnd() == "")
        await shutdown.value
        #expect(server.listener.openConnections.isEmpty)
        #expect(try await client.readToEnd() == "")
    }

    @Test func shutdownWithAGracePeriodCancelsConnectionsStillOpen() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession().loopbackTask(port: server.port)
        try await client.write("a")
        let peer = try await server.accept(&accepted)
        // Read, so that nothing is left unread when the peer is cancelled: closing a socket
        // with unread bytes resets the connection instead of ending it. (The write may return
        // before its byte left: it can arrive after the accept.)
        #expect(try await peer.readText(count: 1) == "a")

        await server.listener.shutdown(gracePeriod: 0.2)
        #expect(await peer.waitUntilCompleted()?.code == .cancelled)
        #expect(try await client.readToEnd() == "")
        client.cancel()
    }

    @Test func socatTalksToOurListener() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()

        let output = FileManager.default.temporaryDirectory.appendingPathComponent("socat-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let socat = try ChildProcess(
            "/usr/bin/env", ["socat", "-t", "5", "-", "TCP:127.0.0.1:\(server.port)"], output: output,
            errors: "/dev/null", pipeInput: true)
        socat.send("hello from socat")

        let peer = try await server.accept(&accepted)
        let line = try await peer.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
        #expect(line == Data("hello from socat\n".utf8))
        try await peer.write("hello from StreamTaskKit\n")
        peer.closeWrite()
        socat.closeInput()
        // socat half-closes after its input ends; we see end of stream.
        #expect(try await peer.readToEnd() == "")
        let received = await offCooperativePool { () -> String in
            let deadline = Date().addingTimeInterval(30)
            while socat.isRunning() && Date() < deadline { usleep(5_000) }
            return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        #expect(received == "hello from StreamTaskKit\n")
        #expect(socat.exitCode == 0)
        await server.stop()
    }

    @Test func ourClientTalksToAPythonPeerThatSpeaksFirst() async throws {
        let peer = try await PythonPeer.start("send-then-half-close", "220 ready\r\n")
        let client = StreamSession().loopbackTask(port: peer.port)
        #expect(try await client.readToEnd() == "220 ready\r\n")
        try await client.write("QUIT\r\n")
        client.closeWrite()
        #expect(await client.waitUntilCompleted() == nil)
        #expect(await peer.finish() == [#"received QUIT\r\n"#, "done"])
    }

    @Test func pythonPeerAnswersAfterOurHalfClose() async throws {
        let peer = try await PythonPeer.start("reply-after-eof")
        let client = StreamSession().loopbackTask(port: peer.port)
        try await client.write("abc")
        client.closeWrite()
        #expect(try await client.readToEnd() == "got 3 bytes: abc")
        _ = await peer.finish()
    }
}
