//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import ChatServerCore
import Foundation
import StreamTaskKit
import Testing

/// A chat server in this process on 127.0.0.1 and a free port, for one test.
struct ChatServerFixture {
    static func identity(tls: Bool = false) -> ChatServerIdentity {
        ChatServerIdentity(serverName: "chat.test", networkName: "Test Chat", createdText: "today", offersSTARTTLS: tls)
    }

    /// Runs `body` with a started server, then shuts it down.
    static func with<T>(
        tls: StreamTLSConfiguration? = nil,
        session: StreamSession? = nil,
        _ configure: (inout ChatServerConfiguration) -> Void = { _ in },
        _ body: (ChatServer, Int) async throws -> T
    ) async throws -> T {
        var configuration = ChatServerConfiguration(identity: identity(tls: tls != nil), tls: tls)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.listenerSession = session
        configure(&configuration)
        let server = ChatServer(configuration: configuration)
        try await server.start()
        let running = Task { await server.run() }
        do {
            let result = try await body(server, server.port!)
            await server.shutdown()
            await running.value
            return result
        } catch {
            await server.shutdown()
            await running.value
            throw error
        }
    }

    /// A session whose tasks accept only `tls`'s certificate, by its SHA-256, as the chat
    /// client does with a fingerprint from DNS-SD.
    static func pinnedSession(for tls: StreamTLSConfiguration) throws -> StreamSession {
        let fingerprint = try #require(tls.certificateChain.first?.sha256Fingerprint)
        let configuration = StreamSessionConfiguration(
            tls: StreamTLSConfiguration(certificateVerification: .none, pins: [.certificateSHA256(fingerprint)]),
            proxy: .direct)
        // As the chat client: local networking allowed, so a pin alone may trust 127.0.0.1.
        configuration.transportSecurity = StreamTransportSecurity(allowsLocalNetworking: true)
        return StreamSession(configuration: configuration)
    }

    /// A fresh self-signed certificate made the way the chat server makes its own.
    static func makeTLS() throws -> StreamTLSConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ChatCertificateStore(directory: directory).loadOrCreate(commonName: "chat.test").tls
    }
}

/// The lines that went to `id` among a state's `actions`, serialized.
///
/// A message the server could not put on the wire (the I/O drops it, logging an error) is
/// recorded as an issue of the calling test, so every test that looks at what was sent also
/// checks that it could be sent.
func sent(
    _ actions: [ChatServerAction], to id: ChatClientID, sourceLocation: SourceLocation = #_sourceLocation
) -> [String] {
    actions.compactMap { action -> String? in
        let message: IRCMessage
        switch action {
        case .send(let target, let sent) where target == id: message = sent
        case .broadcast(let targets, let sent) where targets.contains(id): message = sent
        default: return nil
        }
        do {
            return try message.serialized()
        } catch {
            Issue.record(
                "the server sent a message that cannot be serialized: \(error)", sourceLocation: sourceLocation
            )
            return message.description
        }
    }
}
