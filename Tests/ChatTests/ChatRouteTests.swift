//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// The chat client moving to a better route: a chat server in a network namespace reachable
/// over two links (see ``RouteLab``), the client connected over the worse one; when a better
/// route appears, the client reconnects at a quiet moment and rejoins its channel.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled("needs root and `ip netns` (iproute2); CI=true makes it mandatory") { await RouteLab.isAvailable() }
)
struct ChatRouteTests {
    @Test func theClientRejoinsOverABetterRoute() async throws {
        let serverPath = try BuiltProducts.path("chat-server")
        let lab = try await RouteLab.create(
            server: { address, port in
                [
                    serverPath, "--host", address, "--port", "\(port)", "--no-advertise", "--no-tls", "--server-name",
                    "chat.route",
                ]
            }, readyMarker: "listening on")
        do {
            let client = try ObservedProcess(
                try BuiltProducts.path("chat-client"),
                [
                    "--host", lab.serverAddress, "--port", "\(RouteLab.port)", "--nick", "mover", "--channel", "#route",
                    "--no-reconnect",
                ],
                pipeInput: true)
            #expect(await client.waitForOutput(containing: "you joined #route"), "\(client.output)")
            client.send("before the move")

            try await lab.addBetterRoute()
            #expect(await client.waitForOutput(containing: "a better route to the server appeared"), "\(client.output)")
            #expect(await client.waitForOutput(containing: "moving to the better route"), "\(client.output)")
            #expect(
                await eventually(30) { client.output.components(separatedBy: "you joined #route").count - 1 >= 2 },
                "\(client.output)")
            #expect(!client.output.contains("!!!"), "the move showed an error: \(client.output)")

            client.send("after the move")
            client.send("/quit")
            await client.stop()
            await lab.remove()
        } catch {
            await lab.remove()
            throw error
        }
    }
}
