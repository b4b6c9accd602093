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

/// Upgrading to WebSocket with a data task against a real server (Debian's
/// python3-websockets), then speaking WebSocket frames on the raw stream task.
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketUpgradeTests {
    /// Upgrades, becomes a stream, and echoes a frame; returns the stream task.
    private func upgradeAndEcho(session: StreamSession, port: Int) async throws -> StreamTask {
        let dataTask = session.dataTask(with: try DataTaskTesting.webSocketUpgrade(port: port))
        let response = try await dataTask.receiveResponse()
        #expect(response.statusCode == 101)
        #expect(response.value(forHTTPHeaderField: "Sec-WebSocket-Accept") == DataTaskTesting.webSocketAccept)
        #expect(response.value(forHTTPHeaderField: "upgrade")?.lowercased() == "websocket")

        let stream = try await dataTask.becomeStream()
        #expect(await dataTask.waitUntilCompleted() == nil)
        #expect((stream.response as? HTTPURLResponse)?.statusCode == 101)
        #expect(stream.originalRequest?.url?.path == "/echo")
        #expect(stream.state == .running)

        try await stream.write(DataTaskTesting.maskedTextFrame("hello over a raw stream"), timeout: 10)
        let (opcode, payload) = try await DataTaskTesting.readFrame(from: stream)
        #expect(opcode == 0x1, "a text frame")
        #expect(String(decoding: payload, as: UTF8.self) == "hello over a raw stream")

        try await stream.write(DataTaskTesting.maskedTextFrame("second"), timeout: 10)
        let (_, second) = try await DataTaskTesting.readFrame(from: stream)
        #expect(String(decoding: second, as: UTF8.self) == "second")
        return stream
    }

    /// The closing handshake (RFC 6455, section 5.5.1): our close frame, the server's, then
    /// the server ends the connection.
    private func close(_ stream: StreamTask) async throws {
        try await stream.write(DataTaskTesting.maskedFrame(opcode: 0x8, payload: [0x03, 0xe8]), timeout: 10)
        let (opcode, payload) = try await DataTaskTesting.readFrame(from: stream)
        #expect(opcode == 0x8, "a close frame")
        #expect(Array(payload) == [0x03, 0xe8], "status 1000 echoed")
        #expect(try await stream.readToEnd() == "")
        stream.cancel()
        await stream.waitUntilCompleted()
    }

    @Test func upgradeThenExchangeFramesOnTheRawStream() async throws {
        try await DataTaskTesting.withPeer("websocket_echo.py", mode: "echo") { server in
            let session = DataTaskTesting.session()
            let stream = try await upgradeAndEcho(session: session, port: server.port)
            #expect(session.allTasks.map(\.taskIdentifier) == [stream.taskIdentifier])
            try await close(stream)
        }
    }

    @Test func upgradeThroughTinyproxy() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { proxy in
            try await DataTaskTesting.withPeer("websocket_echo.py", mode: "echo") { server in
                let session = DataTaskTesting.session(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port))
                let stream = try await upgradeAndEcho(session: session, port: server.port)
                #expect(stream.metrics.isProxyConnection)
                #expect(stream.metrics.remotePort == proxy.port, "the connection's far end is the proxy")
                try await close(stream)
            }
        }
    }
}
