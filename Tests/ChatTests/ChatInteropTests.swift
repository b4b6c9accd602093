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
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// The chat server and client against IRC software no one here wrote, from Debian's packages,
/// and the built `chat-client` and `chat-server` programs themselves.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ChatInteropTests {
    /// `openssl s_client -starttls irc` upgrades against our server, then registers over TLS.
    @Test func openSSLUpgradesWithSTARTTLSAgainstOurServer() async throws {
        let tls = try ChatServerFixture.makeTLS()
        try await ChatServerFixture.with(tls: tls) { _, port in
            let openssl = try BuiltProducts.installed("openssl", package: "openssl")
            let client = try ObservedProcess(
                openssl, ["s_client", "-starttls", "irc", "-connect", "127.0.0.1:\(port)", "-quiet", "-verify_quiet"],
                pipeInput: true)
            // s_client sends STARTTLS and reads up to 670 itself; what follows goes over TLS.
            #expect(await client.waitForOutput(containing: "670 * :STARTTLS successful"), "\(client.output)")
            client.send("NICK viaopenssl\r")
            client.send("USER o 0 * :OpenSSL\r")
            #expect(
                await client.waitForOutput(containing: "001 viaopenssl :Welcome to the Test Chat IRC Network"),
                "\(client.output)")
            client.send("QUIT :done\r")
            #expect(
                await client.waitForOutput(containing: "ERROR :Closing Link: 127.0.0.1 (Quit: done)"),
                "\(client.output)")
            await client.stop()
        }
    }

    /// Our client joins ngIRCd and talks with another client there.
    @Test func ourClientTalksToAnotherClientOnNgircd() async throws {
        let ngircd = try await NgircdServer.start()
        do {
            let other = IRCTestClient(port: ngircd.port)
            try await other.register("other")
            try await other.join("#interop")

            let ours = try ObservedProcess(
                try BuiltProducts.path("chat-client"),
                [
                    "--host", "127.0.0.1", "--port", "\(ngircd.port)", "--nick", "ours", "--channel", "#interop",
                    "--no-reconnect",
                ],
                pipeInput: true)
            let joined = try await other.waitFor("our client's JOIN") {
                $0.command == "JOIN" && $0.sourceNickname == "ours"
            }
            #expect(joined.parameters.first == "#interop")
            #expect(await ours.waitForOutput(containing: "you joined #interop"), "\(ours.output)")

            ours.send("hello from chat-client")
            let heard = try await other.waitFor(command: "PRIVMSG")
            #expect(heard.sourceNickname == "ours")
            #expect(heard.parameters == ["#interop", "hello from chat-client"])

            try await other.send("PRIVMSG #interop :hello back from ngircd")
            #expect(await ours.waitForOutput(containing: "<other> hello back from ngircd"), "\(ours.output)")
            ours.send("/quit bye now")
            let quit = try await other.waitFor(command: "QUIT")
            #expect(quit.sourceNickname == "ours")
            await ours.stop()
            await other.close()
            await ngircd.stop()
        } catch {
            Issue.record("ngircd said: \(ngircd.process.output.suffix(2000))")
            await ngircd.stop()
            throw error
        }
    }

    /// Our client speaks TLS from the first byte (`--tls`) to ngIRCd's TLS port, pinned to its
    /// certificate, and is refused when the pin does not match.
    @Test func ourClientUsesTLSFromTheFirstByteWithNgircd() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ngircd-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ChatCertificateStore(directory: directory)
        let tls = try store.loadOrCreate(commonName: "ngircd.test").tls
        let fingerprint = ChatServiceRecord.fingerprint(try #require(tls.certificateChain.first?.sha256Fingerprint))
        // ngIRCd reads its key as the user it runs as.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.privateKeyFile.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let ngircd = try await NgircdServer.start(
            certificateFile: store.certificateFile.path, keyFile: store.privateKeyFile.path)
        do {
            let port = try #require(ngircd.tlsPort)
            let ours = try ObservedProcess(
                try BuiltProducts.path("chat-client"),
                [
                    "--host", "127.0.0.1", "--port", "\(port)", "--tls", "--fingerprint", fingerprint, "--nick",
                    "tlsuser", "--no-reconnect",
                ],
                pipeInput: true)
            #expect(await ours.waitForOutput(containing: "registered as tlsuser"), "\(ours.output)")
            #expect(ours.output.contains("secured with TLS"), "\(ours.output)")
            ours.send("/quit")
            await ours.stop()

            let wrongPin = "sha256:" + String(repeating: "ab", count: 32)
            let refused = try ObservedProcess(
                try BuiltProducts.path("chat-client"),
                [
                    "--host", "127.0.0.1", "--port", "\(port)", "--tls", "--fingerprint", wrongPin, "--nick", "tlsuser",
                    "--no-reconnect",
                ],
                pipeInput: true)
            #expect(await refused.waitForOutput(containing: "pin"), "\(refused.output)")
            #expect(!refused.output.contains("registered as"), "\(refused.output)")
            await refused.stop()
            await ngircd.stop()
        } catch {
            await ngircd.stop()
            throw error
        }
    }

    /// irssi, driven through tmux, joins our server and exchanges messages with our client.
    @Test func irssiAndOurClientTalkOnOurServer() async throws {
        let tmux = try BuiltProducts.installed("tmux", package: "tmux")
        let irssi = try BuiltProducts.installed("irssi", package: "irssi")
        try await ChatServerFixture.with(tls: try ChatServerFixture.makeTLS()) { _, port in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("irssi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let socket = "chat-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let session = TmuxSession(tmux: tmux, socket: socket)
            defer { try? FileManager.default.removeItem(at: home) }
            do {
                try await session.start(
                    "\(irssi) --home=\(home.path) -n irssiuser -c 127.0.0.1 -p \(port)", width: 200, height: 50)
                try await session.expectScreen(containing: "Welcome to the Test Chat IRC Network")
                try await session.type("/join #interop")
                try await session.expectScreen(containing: "has joined #interop")

                let ours = try ObservedProcess(
                    try BuiltProducts.path("chat-client"),
                    [
                        "--host", "127.0.0.1", "--port", "\(port)", "--nick", "ours", "--channel", "#interop",
                        "--no-reconnect",
                    ],
                    pipeInput: true)
                #expect(await ours.waitForOutput(containing: "in #interop: irssiuser ours"), "\(ours.output)")
                try await session.expectScreen(containing: "ours")

                ours.send("hello irssi, from chat-client")
                try await session.expectScreen(containing: "hello irssi, from chat-client")
                try await session.type("hello chat-client, from irssi")
                #expect(
                    await ours.waitForOutput(containing: "<irssiuser> hello chat-client, from irssi"), "\(ours.output)")
                try await session.type("/me waves")
                #expect(await ours.waitForOutput(containing: "* irssiuser waves"), "\(ours.output)")

                ours.send("/quit")
                await ours.stop()
                try await session.type("/quit")
                await session.stop()
            } catch {
                await session.stop()
                throw error
            }
        }
    }

    /// Our client, started with no arguments, finds our server through DNS-SD (the test
    /// avahi-daemon, on loopback only), upgrades with STARTTLS pinned to the advertised
    /// fingerprint, and registers.
    @Test func ourClientFindsOurServerThroughDNSSD() async throws {
        do {
            try await DNSSDDaemon.checkReachable()
        } catch {
            Issue.record(
                """
                This test needs a running avahi-daemon (with its D-Bus system bus), and none answered. \
                Start a loopback-only one with `bash scripts/start-services.sh` (scripts/test.sh does \
                this by itself), then run the tests again. The library said: \(error)
                """)
            return
        }
        let name = "Chat test \(UInt32.random(in: 0...UInt32.max))"
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("chat-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let server = try ObservedProcess(
            try BuiltProducts.path("chat-server"),
            [
                "--host", "127.0.0.1", "--port", "0", "--name", name, "--server-name", "chat.test", "--state-directory",
                state.path,
            ])
        do {
            #expect(await server.waitForOutput(containing: "advertised as"), "\(server.output)")
            let fingerprint = try #require(
                server.output.split(separator: "\n").first { $0.hasPrefix("STARTTLS certificate ") }?
                    .split(separator: " ").last.map(String.init))

            let client = try ObservedProcess(
                try BuiltProducts.path("chat-client"), ["--nick", "finder", "--no-reconnect", "--browse-time", "3"],
                pipeInput: true)
            // Other chat servers may be advertised here too: then the client asks which.
            #expect(await client.waitForOutput(containing: name), "\(client.output)")
            if await client.waitForOutput(containing: "which server", seconds: 5) {
                let line = try #require(client.output.split(separator: "\n").first { $0.contains(name) })
                let number = try #require(line.split(separator: ".").first?.split(separator: " ").last)
                client.send(String(number))
            }
            #expect(
                await client.waitForOutput(containing: "certificate matches the pinned fingerprint"), "\(client.output)"
            )
            #expect(await client.waitForOutput(containing: "registered as finder"), "\(client.output)")
            #expect(fingerprint.hasPrefix("sha256:"))
            client.send("/quit")
            await client.stop()
            await server.stop()
            // Both used Avahi's compatibility layer, which warns on standard error unless told
            // not to: a library must not print.
            for output in [server.output, client.output] {
                #expect(!output.contains("compatibility layer of Avahi"), "\(output)")
            }
        } catch {
            await server.stop()
            throw error
        }
    }
}
