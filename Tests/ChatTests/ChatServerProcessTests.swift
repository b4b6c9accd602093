//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import StreamTaskTestSupport
import Testing

/// The chat-server program itself: its limit options, and SIGTERM through its `ServiceGroup`.
@Suite(.timeLimit(.minutes(1)))
struct ChatServerProcessTests {
    /// `--max-per-address 1` refuses a second connection from 127.0.0.1 with the limit's
    /// `ERROR`; on SIGTERM every client gets its last line (Protocol.md, section 5) and the
    /// program exits 0.
    @Test func thePerAddressOptionRefusesAndSIGTERMShutsDownGracefully() async throws {
        let server = try ObservedProcess(
            try BuiltProducts.path("chat-server"),
            ["--host", "127.0.0.1", "--port", "0", "--no-advertise", "--no-tls", "--max-per-address", "1"])
        do {
            #expect(await server.waitForOutput(containing: "listening on"), "\(server.output)")
            let line = try #require(server.output.split(separator: "\n").first { $0.hasPrefix("listening on ") })
            let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })

            let client = IRCTestClient(port: port)
            try await client.register("first")
            let second = IRCTestClient(port: port)
            let refused = try await second.readToEnd()
            #expect(refused.map(\.command) == ["ERROR"])
            #expect(
                refused.first?.parameters.last == "Closing Link: 127.0.0.1 (Too many connections from your address)")

            kill(server.child.pid, SIGTERM)
            let last = try await client.waitFor(command: "ERROR")
            #expect(last.parameters.last == "Closing Link: 127.0.0.1 (Server shutting down)")
            #expect(try await client.readToEnd().isEmpty, "nothing after the last line")
            await client.close()
            #expect(await server.waitForExit(), "\(server.output)")
            #expect(server.child.exitCode == 0, "\(server.output)")
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }
}
