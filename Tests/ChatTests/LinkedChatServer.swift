//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import StreamTaskKit

@testable import ChatServerCore

/// A chat-server of a link test, run in this process on 127.0.0.1 and a free port.
struct LinkedChatServer {
    let server: ChatServer
    let running: Task<Void, Never>

    /// Starts server `name` with `links`; with `tls`, it also listens on a TLS port. Links it
    /// opens are made with `session`, retried every 200 ms; `logs` records what it logs.
    static func start(
        _ name: String, links: [ChatLinkPeer], tls: StreamTLSConfiguration? = nil, session: StreamSession? = nil,
        listenerSession: StreamSession? = nil, logs: LogRecorder? = nil
    ) async throws -> LinkedChatServer {
        var configuration = ChatServerConfiguration(
            identity: ChatServerIdentity(
                serverName: name, networkName: "Linked Chat", createdText: "today", offersSTARTTLS: false),
            tls: tls)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.tlsPort = tls == nil ? nil : 0
        configuration.links = links
        configuration.linkSession = session
        configuration.listenerSession = listenerSession
        configuration.linkRetryInterval = .milliseconds(200)
        if let logs { configuration.logger = Logger(label: "chat-server") { _ in logs.handler() } }
        let server = ChatServer(configuration: configuration)
        try await server.start()
        return LinkedChatServer(server: server, running: Task { await server.run() })
    }

    /// Shuts the server down and waits until it has.
    func stop() async {
        await server.shutdown()
        await running.value
    }
}

/// Waits until `condition` holds, asking every 50 ms, for `seconds` at most (links register,
/// and networks settle, on their own); returns whether it held.
func pollUntil(_ seconds: Double = 30, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}
