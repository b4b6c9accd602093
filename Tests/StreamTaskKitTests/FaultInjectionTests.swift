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

/// Faults injected by real peers, each checked the same way: the task it hits fails with a
/// clear error, a bystander connection on the same session carries on, no socket to the
/// faulty peer is left open in this process, and the session holds no dead task.
@Suite(.timeLimit(.minutes(2)))
struct FaultInjectionTests {
    /// Runs `fault` beside a healthy echo connection, then checks the aftermath. `fault` gets
    /// the session and returns the port of the peer it attacked.
    private func withBystander(_ fault: (StreamSession) async throws -> Int) async throws {
        let echo = try await PythonPeer.start("echo")
        let session = StreamSession(configuration: .init(proxy: .direct))
        let bystander = session.loopbackTask(port: echo.port)
        try await bystander.write("before")
        #expect(try await bystander.readText(count: 6) == "before")

        let faultyPort = try await fault(session)

        try await bystander.write("after")
        #expect(try await bystander.readText(count: 5) == "after", "the bystander connection was disturbed")
        bystander.closeWrite()
        #expect(try await bystander.readToEnd() == "")
        await bystander.waitUntilCompleted()
        _ = await echo.finish()
        #expect(await eventually { session.allTasks.isEmpty }, "the session still holds \(session.allTasks)")
        #expect(
            await eventually { OpenSockets.count(port: faultyPort) == 0 },
            "\(OpenSockets.count(port: faultyPort)) sockets to port \(faultyPort) are still open")
    }

    @Test func thePeerResetsInTheMiddleOfARead() async throws {
        try await withBystander { session in
            let peer = try await PythonPeer.start("reset-after", "part of a message")
            let victim = session.loopbackTask(port: peer.port)
            async let read = victim.readData(ofMinLength: 100, maxLength: 100, timeout: 10)
            try await victim.write("x")  // the peer resets once it has this byte
            do {
                _ = try await read
                Issue.record("a read of 100 bytes succeeded on a connection that was reset after 17")
            } catch let error as StreamTaskError {
                #expect(error.code == .connectionReset)
                #expect(error.errno == ECONNRESET)
            }
            #expect(await victim.waitUntilCompleted()?.code == .connectionReset)
            _ = await peer.finish()
            return peer.port
        }
    }

    @Test func thePeerResetsInTheMiddleOfAWrite() async throws {
        try await withBystander { session in
            let peer = try await PythonPeer.start("reset-after-reading", "65536")
            let victim = session.loopbackTask(port: peer.port)
            let error = await expectStreamError(.connectionReset) {
                // Far more than the kernel buffers hold: the write is in progress at the reset.
                try await victim.write(Data(count: 64 << 20), timeout: 30)
            }
            #expect(error?.message.contains("reset") == true, "\(String(describing: error))")
            #expect(await victim.waitUntilCompleted()?.code == .connectionReset)
            _ = await peer.finish()
            return peer.port
        }
    }

    @Test func theProxyHangsUpInTheMiddleOfItsReply() async throws {
        try await withBystander { _ in
            let proxy = try await PythonPeer.start("partial-proxy-reply")
            let session = StreamSession(configuration: .init(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port)))
            let victim = session.loopbackTask(port: 9)
            let error = await expectStreamError(.proxyRefused) {
                try await victim.readData(ofMinLength: 1, maxLength: 10, timeout: 10)
            }
            #expect(error?.message.contains("closed the connection before the tunnel was open") == true)
            #expect(await victim.waitUntilCompleted()?.code == .proxyRefused)
            #expect(await eventually { session.allTasks.isEmpty })
            _ = await proxy.finish()
            return proxy.port
        }
    }

    @Test func aTLSPeerSendsGarbage() async throws {
        try await withBystander { session in
            let peer = try await PythonPeer.start("garbage-after-read")
            let victim = session.loopbackTask(port: peer.port)
            let error = await expectStreamError(.tlsHandshakeFailed) {
                try await victim.startTLS(timeout: 10)
            }
            #expect(error?.message.contains("does not speak TLS") == true, "\(String(describing: error))")
            #expect(await victim.waitUntilCompleted() != nil)
            _ = await peer.finish()
            return peer.port
        }
    }

    @Test func aWriteToAPeerThatNeverReadsTimesOutAndCloses() async throws {
        try await withBystander { session in
            let peer = try await PythonPeer.start("hold")
            let victim = session.loopbackTask(port: peer.port)
            // Connected first: a write that times out while the task is still connecting never
            // reached the channel, so it closes nothing, and that is not the case under test.
            #expect(try await victim.readText(count: 5) == "ready")
            await expectStreamError(.timedOut) {
                try await victim.write(Data(count: 64 << 20), timeout: 1)
            }
            // Part of it may have been sent: the stream is no longer at a message boundary, so
            // the task closes the connection (as documented on write(_:timeout:)).
            #expect(await victim.waitUntilCompleted() != nil)
            _ = await peer.finish()
            return peer.port
        }
    }

    @Test func aListenerAtItsConnectionLimitServesTheNextOneWhenASlotFrees() async throws {
        try await withBystander { session in
            let listener = StreamListener(host: "127.0.0.1", port: 0, maximumConnections: 1)
            try await listener.start()
            let port = try #require(listener.port)
            let serving = Task {
                var served = 0
                for await connection in listener.connections {
                    served += 1
                    let text = try await connection.readText(count: 5)
                    try await connection.write("\(served):\(text)")
                    connection.closeWrite()
                    _ = try await connection.readToEnd()
                    await connection.waitUntilCompleted()
                }
                return served
            }
            let first = session.loopbackTask(port: port)
            try await first.write("first")
            #expect(try await first.readText(count: 7) == "1:first")
            // The listener is at its limit now: this one waits in the kernel's backlog.
            let second = session.loopbackTask(port: port)
            try await second.write("secnd")
            #expect(listener.openConnections.count == 1)
            #expect(try await first.readToEnd() == "")
            first.closeWrite()
            #expect(try await second.readToEnd() == "2:secnd")
            second.closeWrite()
            await first.waitUntilCompleted()
            await second.waitUntilCompleted()
            await listener.shutdown(gracePeriod: 5)
            #expect(try await serving.value == 2)
            return port
        }
    }
}
