//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Data-task test helpers: sessions without proxy variables, requests, WebSocket frames.
enum DataTaskTesting {
    /// A session that connects directly, whatever proxy the environment names.
    static func session(
        proxy: ProxyConfiguration = .direct,
        delegate: (any StreamSessionDelegate)? = nil
    ) -> StreamSession {
        let configuration = StreamSession.Configuration(timeoutIntervalForRequest: 20, proxy: proxy)
        // The test servers speak plaintext HTTP on 127.0.0.1.
        configuration.transportSecurity = .insecureLoopback
        return StreamSession(configuration: configuration, delegate: delegate)
    }

    static func request(_ url: String, method: String = "GET", body: String? = nil) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }

    /// A WebSocket opening handshake for `port` (RFC 6455, section 4.1).
    static func webSocketUpgrade(port: Int) throws -> URLRequest {
        var request = try request("ws://127.0.0.1:\(port)/echo")
        request.setValue("websocket", forHTTPHeaderField: "Upgrade")
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue("dGhlIHNhbXBsZSBub25jZQ==", forHTTPHeaderField: "Sec-WebSocket-Key")
        request.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        return request
    }

    /// The accept value a server must answer the key above with (RFC 6455's own example).
    static let webSocketAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    /// A masked client text frame (RFC 6455, section 5.2), short payloads only.
    static func maskedTextFrame(_ text: String) -> Data {
        maskedFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    /// A final, masked client frame with `opcode`, short payloads only.
    static func maskedFrame(opcode: UInt8, payload: [UInt8], mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]) -> Data {
        precondition(payload.count < 126)
        var frame: [UInt8] = [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
        for (index, byte) in payload.enumerated() {
            frame.append(byte ^ mask[index % 4])
        }
        return Data(frame)
    }

    /// Reads one unmasked server frame off `task`: its opcode and payload.
    static func readFrame(from task: StreamTask) async throws -> (opcode: UInt8, payload: Data) {
        let (header, _) = try await task.readData(ofMinLength: 2, maxLength: 2, timeout: 10)
        let bytes = Array(try #require(header))
        try #require(bytes.count == 2)
        #expect(bytes[0] & 0x80 != 0, "a single, final frame")
        #expect(bytes[1] & 0x80 == 0, "a server's frames are not masked")
        let length = Int(bytes[1] & 0x7f)
        try #require(length < 126, "a short frame")
        guard length > 0 else { return (bytes[0] & 0x0f, Data()) }
        let (payload, _) = try await task.readData(ofMinLength: length, maxLength: length, timeout: 10)
        return (bytes[0] & 0x0f, try #require(payload))
    }

    /// Runs `body` with a peer started from `Peers/<script>`, then waits for it to exit. If
    /// `body` throws, the peer may still be serving a connection nobody will close: it is
    /// killed by its PID (SIGKILL, when the last reference to it goes) instead.
    static func withPeer<T>(
        _ script: String,
        mode: String,
        _ body: (PythonPeer) async throws -> T
    ) async throws -> T {
        let peer = try await PythonPeer.start(script: script, mode: mode)
        let result = try await body(peer)
        _ = await peer.finish()
        return result
    }
}
