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
import StreamTaskDNSSD
import StreamTaskTestSupport
import Testing

@testable import ChatClientCore

/// A client that found its server through DNS-SD, when the server comes back elsewhere.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ChatDiscoveryReconnectTests {
    /// The server restarts on another port and advertises itself again under the same name:
    /// the client resolves the name again when it reconnects, and registers there. (It used to
    /// retry the first port forever.)
    @Test func aClientFollowsItsServerToAnotherPort() async throws {
        do {
            try await DNSSDDaemon.checkReachable()
        } catch {
            Issue.record(
                "This test needs a running avahi-daemon: start one with `bash scripts/start-services.sh`. The library said: \(error)"
            )
            return
        }
        let name = "Chat move test \(UInt32.random(in: 0...UInt32.max))"
        let record = ChatServiceRecord(name: name, offersSTARTTLS: false).txtRecord
        let first = try await Self.startServer()
        let second = try await Self.startServer()  // started now, so that its port differs
        let firstRegistration = try await DNSSDRegistration.register(
            name: name, type: ChatServiceRecord.serviceType, port: first.server.port!, txtRecord: DNSSDTXTRecord(record)
        )
        let resolved = try await firstRegistration.service.resolve(timeout: 10)
        let found = DiscoveredChatServer(resolved: resolved, record: ChatServiceRecord(txtRecord: record))
        let ui = RecordingUserInterface()
        let client = Task { await ChatClient(options: .discovered(found, nick: "mover", channels: []), ui: ui).run() }
        let registrations = { ui.lines.filter { $0.contains("registered as mover") }.count }
        #expect(await eventually(20) { registrations() == 1 }, "\(ui.lines)")

        // The first server goes away and the second takes over the name.
        firstRegistration.cancel()
        await first.stop()
        let secondRegistration = try await DNSSDRegistration.register(
            name: name, type: ChatServiceRecord.serviceType, port: second.server.port!,
            txtRecord: DNSSDTXTRecord(record))
        #expect(await eventually(40) { registrations() == 2 }, "\(ui.lines)")
        #expect(
            ui.lines.contains { $0.contains("is now advertised at") && $0.contains(":\(second.server.port!)") },
            "\(ui.lines)")

        ui.type("/quit")
        ui.end()
        _ = await client.value
        secondRegistration.cancel()
        await second.stop()
    }

    /// A chat server on 127.0.0.1 and a free port, running until ``RunningServer/stop()``.
    struct RunningServer {
        let server: ChatServer
        let running: Task<Void, Never>

        func stop() async {
            await server.shutdown()
            await running.value
        }
    }

    static func startServer() async throws -> RunningServer {
        var configuration = ChatServerConfiguration(identity: ChatServerFixture.identity(), tls: nil)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let server = ChatServer(configuration: configuration)
        try await server.start()
        return RunningServer(server: server, running: Task { await server.run() })
    }
}
