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
import NIOConcurrencyHelpers
import StreamTaskKit
import StreamTaskTestSupport
import Testing

@testable import ChatClientCore

/// A refusal that will not change by itself ends the client with the reason, instead of a
/// reconnect loop that is refused every time.
@Suite(.timeLimit(.minutes(1)))
struct ChatClientRefusalTests {
    /// A wrong server password (`464`) and a ban (`465`).
    @Test(arguments: [
        ("464", "Password incorrect", "wrong server password"),
        ("465", "You are banned from this server", "banned from this server"),
    ])
    func aRefusedRegistrationIsNotRetried(numeric: String, text: String, reason: String) async throws {
        try await ScriptedIRCServer.with(replies: { line in
            line.hasPrefix("USER ")
                ? [":srv \(numeric) alice :\(text)", "ERROR :Closing Link: 127.0.0.1 (\(text))"] : []
        }) { server in
            let ui = RecordingUserInterface()
            let status = try await Self.runUntilItStops(
                ChatClient(options: Self.options(port: server.port, security: .none), ui: ui), ui: ui)
            #expect(status == 1)
            #expect(
                ui.lines.contains { $0.contains(reason) && $0.contains(text) && $0.contains("not reconnecting") },
                "\(ui.lines)")
            #expect(!ui.lines.contains { $0.contains("reconnecting in") }, "\(ui.lines)")
        }
    }

    /// TLS from the first byte to a server whose certificate nothing vouches for.
    @Test func anUntrustedCertificateIsNotRetried() async throws {
        let listener = StreamListener(
            host: "127.0.0.1", port: 0, session: StreamSession(configuration: .init(proxy: .direct)),
            tls: try ChatServerFixture.makeTLS())
        try await listener.start()
        let accepting = Task { for await connection in listener.connections { _ = connection } }
        defer { accepting.cancel() }
        let ui = RecordingUserInterface()
        let status = try await Self.runUntilItStops(
            ChatClient(options: Self.options(port: listener.port!, security: .tls), ui: ui), ui: ui)
        #expect(status == 1)
        #expect(ui.lines.contains { $0.contains("not reconnecting") }, "\(ui.lines)")
        #expect(!ui.lines.contains { $0.contains("reconnecting in") }, "\(ui.lines)")
        await listener.shutdown()
    }

    /// A server whose certificate has a 1024-bit RSA key, reached by address under App Transport
    /// Security's defaults (what `--transport-security` gives with an empty dictionary): the
    /// rule's name is on screen, and the client does not retry.
    @Test func aWeakServerIsRefusedWithTheRulesName() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try await ChatTransportSecurityTests.weakCertificate(in: directory)
        let listener = StreamListener(
            host: "127.0.0.1", port: 0, session: StreamSession(configuration: .init(proxy: .direct)),
            tls: try .server(certificatePEMFile: certificate, privateKeyPEMFile: key))
        try await listener.start()
        let accepting = Task { for await connection in listener.connections { _ = connection } }
        defer { accepting.cancel() }
        let ui = RecordingUserInterface()
        var options = Self.options(port: listener.port!, security: .tls)
        options.acceptsAnyCertificate = true
        options.transportSecurity = try StreamTransportSecurity(dictionary: [:])
        let status = try await Self.runUntilItStops(ChatClient(options: options, ui: ui), ui: ui)
        #expect(status == 1)
        #expect(
            ui.lines.contains {
                $0.contains("App Transport Security requires RSA keys of 2048 bits or more")
                    && $0.contains("RSA 1024-bit") && $0.contains("NSExceptionRequiresForwardSecrecy")
            }, "\(ui.lines)")
        #expect(!ui.lines.contains { $0.contains("reconnecting in") }, "\(ui.lines)")
        await listener.shutdown()
    }

    /// Runs `client` until it stops by itself (at most 20 s); then, or if it does not, quits it.
    /// Returns its exit status if it stopped by itself.
    /// A server whose certificate is not the pinned one: the refusal names both fingerprints
    /// in the one form the chat shows and takes (`sha256:` and hex), not the library's
    /// `SHA-256 AB:CD:…`, and the client does not retry.
    @Test func aWrongPinIsNamedInTheChatsFingerprintForm() async throws {
        try await ChatServerFixture.with(tls: try ChatServerFixture.makeTLS()) { _, port in
            let ui = RecordingUserInterface()
            var options = Self.options(port: port, security: .startTLS)
            options.pinnedCertificateSHA256 = [UInt8](repeating: 0xab, count: 32)
            let status = try await Self.runUntilItStops(ChatClient(options: options, ui: ui), ui: ui)
            #expect(status == 1)
            let refusal = ui.lines.first { $0.contains("TLS upgrade failed") } ?? ""
            #expect(refusal.contains("sha256:"), "\(ui.lines)")
            #expect(!refusal.contains("SHA-256"), "\(refusal)")
            #expect(!ui.lines.contains { $0.contains("reconnecting in") }, "\(ui.lines)")
        }
    }

    static func runUntilItStops(_ client: ChatClient, ui: RecordingUserInterface) async throws -> Int32? {
        let result = NIOLockedValueBox<Int32?>(nil)
        let run = Task {
            let status = await client.run()
            result.withLockedValue { $0 = status }
        }
        let stopped = await eventually(20) { result.withLockedValue { $0 } != nil }
        #expect(stopped, "the client kept trying: \(ui.lines)")
        if !stopped {
            ui.type("/quit")
            ui.end()
        }
        await run.value
        return stopped ? result.withLockedValue { $0 } : nil
    }

    static func options(port: Int, security: ChatClientOptions.Security) -> ChatClientOptions {
        ChatClientOptions(target: .host("127.0.0.1", port: port), security: security, nick: "alice", proxy: .direct)
    }
}
