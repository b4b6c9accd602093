//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit
import StreamTaskTestSupport
import Testing

/// The chat programs tell their user what went wrong in one line, in the user's terms (no
/// library type names), on standard error.
@Suite(.timeLimit(.minutes(1)))
struct ChatCommandMessagesTests {
    /// Runs `command` through the shell with its standard error in a file of its own; the
    /// process, and that file.
    static func run(_ command: String) throws -> (ObservedProcess, URL) {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        let process = try ObservedProcess("/bin/sh", ["-c", "\(command) </dev/null 2>\(errors.path)"])
        return (process, errors)
    }

    static func text(of file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    @Test func aServerThatCannotListenSaysWhereAndWhy() async throws {
        let taken = StreamListener(
            host: "127.0.0.1", port: 0, session: StreamSession(configuration: .init(proxy: .direct)))
        try await taken.start()
        let port = try #require(taken.port)
        let (server, errors) = try Self.run(
            "\(try BuiltProducts.path("chat-server")) --host 127.0.0.1 --port \(port) --no-advertise --no-tls")
        defer { try? FileManager.default.removeItem(at: errors) }
        #expect(await server.waitForExit(seconds: 30), "\(server.output)")
        let said = Self.text(of: errors)
        #expect(server.child.exitCode == 1, "\(said)")
        #expect(said.hasPrefix("chat-server: could not listen on that address (127.0.0.1:\(port))"), "\(said)")
        #expect(said.contains("Address already in use"), "\(said)")
        #expect(!said.contains("StreamTaskError"), "\(said)")
        await taken.shutdown()
    }

    @Test func aBadProxyIsAUsageErrorInTheUsersTerms() async throws {
        let (client, errors) = try Self.run(
            "\(try BuiltProducts.path("chat-client")) --host 127.0.0.1 --proxy ftp://proxy.invalid")
        defer { try? FileManager.default.removeItem(at: errors) }
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let said = Self.text(of: errors)
        #expect(client.child.exitCode == 64, "\(said)")
        #expect(said.contains("--proxy: the proxy URL has the unsupported scheme \"ftp\""), "\(said)")
        #expect(!said.contains("StreamTaskError"), "\(said)")
    }

    /// A certificate that cannot be loaded, and a transport-security file that is not there,
    /// are usage errors naming the option and the file, in words, not a type's dump.
    @Test func unusableFilesAreUsageErrorsNamingTheirOption() async throws {
        let junk = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).pem")
        try Data("not a certificate\n".utf8).write(to: junk)
        defer { try? FileManager.default.removeItem(at: junk) }
        let (server, serverErrors) = try Self.run(
            "\(try BuiltProducts.path("chat-server")) --host 127.0.0.1 --port 0 --no-advertise "
                + "--cert \(junk.path) --key \(junk.path)")
        defer { try? FileManager.default.removeItem(at: serverErrors) }
        #expect(await server.waitForExit(seconds: 30), "\(server.output)")
        let serverSaid = Self.text(of: serverErrors)
        #expect(server.child.exitCode == 64, "\(serverSaid)")
        #expect(
            serverSaid.contains("--cert \(junk.path) and --key \(junk.path): not a usable certificate"), "\(serverSaid)"
        )
        #expect(!serverSaid.contains("StreamTaskError"), "\(serverSaid)")

        let missing = "/nonexistent/stk-ats-\(UUID().uuidString).plist"
        let (client, clientErrors) = try Self.run(
            "\(try BuiltProducts.path("chat-client")) --host 127.0.0.1 --transport-security \(missing)")
        defer { try? FileManager.default.removeItem(at: clientErrors) }
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let clientSaid = Self.text(of: clientErrors)
        #expect(client.child.exitCode == 64, "\(clientSaid)")
        #expect(clientSaid.contains("--transport-security \(missing): "), "\(clientSaid)")
        #expect(!clientSaid.contains("NSCocoaErrorDomain") && !clientSaid.contains("UserInfo"), "\(clientSaid)")
    }

    /// Plain output (a pipe, a script) gets the chat; its errors go to standard error.
    @Test func inPlainModeErrorsGoToStandardError() async throws {
        let closed = try ClosedPort()
        let (client, errors) = try Self.run(
            "\(try BuiltProducts.path("chat-client")) --host 127.0.0.1 --port \(closed.port) --no-reconnect")
        defer { try? FileManager.default.removeItem(at: errors) }
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let said = Self.text(of: errors)
        #expect(client.child.exitCode == 1, "\(client.output)\n\(said)")
        #expect(client.output.contains("connecting to 127.0.0.1:\(closed.port)"), "\(client.output)")
        #expect(!client.output.contains("!!!"), "\(client.output)")
        #expect(said.contains("never connected to 127.0.0.1:\(closed.port)"), "\(said)")
    }
}
