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
import Logging
import NIOConcurrencyHelpers
import StreamTaskKit
import StreamTaskTestSupport
import Testing

@testable import ChatServerCore

/// Links over TLS from the first byte, as ngIRCd's `SSLConnect`: chat-server to ngIRCd's TLS
/// port with a pinned certificate, ngIRCd to chat-server's `--tls-port`, and a pin that does
/// not match.
@Suite(.timeLimit(.minutes(2))) struct ChatServerTLSLinkTests {
    static let password = "tls-link-secret"

    /// A certificate for `name` in a fresh directory that ngIRCd (running as nobody) can read.
    private static func certificate(for name: String) throws -> ChatCertificateStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("link-tls-\(UUID().uuidString)")
        let store = ChatCertificateStore(directory: directory)
        _ = try store.loadOrCreate(commonName: name)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.privateKeyFile.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        return store
    }

    /// One user on each side shares a channel over the link.
    private static func talk(chatPort: Int, ngircdPort: Int) async throws {
        let alice = IRCTestClient(port: chatPort)
        try await alice.register("alice")
        try await alice.join("#tls")
        let bob = IRCTestClient(port: ngircdPort)
        try await bob.register("bob")
        try await bob.join("#tls")
        try await bob.send("PRIVMSG #tls :over TLS")
        let heard = try await alice.waitFor("bob's line") { $0.command == "PRIVMSG" && $0.sourceNickname == "bob" }
        #expect(heard.parameters == ["#tls", "over TLS"])
        await alice.close()
        await bob.close()
    }

    @Test func chatServerLinksToNgircdsTLSPortPinnedToItsCertificate() async throws {
        let store = try Self.certificate(for: "ngircd.test")
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let pin = try #require(
            try store.loadOrCreate(commonName: "ngircd.test").tls.certificateChain.first?.sha256Fingerprint)
        let ngircd = try await NgircdServer.start(
            certificateFile: store.certificateFile.path, keyFile: store.privateKeyFile.path,
            extra: "[Server]\nName = chat.test\nMyPassword = \(Self.password)\nPeerPassword = \(Self.password)")
        let ngircdTLSPort = try #require(ngircd.tlsPort as Int?)
        var peer = ChatLinkPeer(
            name: "ngircd.test", host: "127.0.0.1", port: ngircdTLSPort, sentPassword: Self.password,
            expectedPassword: Self.password)
        peer.security = .pinned(sha256: pin)
        let chat = try await LinkedChatServer.start("chat.test", links: [peer])
        #expect(await pollUntil { await chat.server.linkedServers == ["ngircd.test"] }, "\(ngircd.process.output)")
        try await Self.talk(chatPort: try #require(chat.server.port), ngircdPort: ngircd.port)
        let observer = IRCTestClient(port: try #require(chat.server.port))
        try await observer.register("observer")
        let stats = try await ChatServerLinkTests.linkStats(asking: observer)
        #expect(stats.first?.parameters.last?.contains("TLS 1.") == true, "\(stats)")
        await observer.close()
        await chat.stop()
        await ngircd.stop()
    }

    @Test func aPinThatDoesNotMatchKeepsTheLinkDownAndSaysWhy() async throws {
        let store = try Self.certificate(for: "ngircd.test")
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let ngircd = try await NgircdServer.start(
            certificateFile: store.certificateFile.path, keyFile: store.privateKeyFile.path,
            extra: "[Server]\nName = chat.test\nMyPassword = \(Self.password)\nPeerPassword = \(Self.password)")
        let ngircdTLSPort = try #require(ngircd.tlsPort as Int?)
        var peer = ChatLinkPeer(
            name: "ngircd.test", host: "127.0.0.1", port: ngircdTLSPort, sentPassword: Self.password,
            expectedPassword: Self.password)
        peer.security = .pinned(sha256: [UInt8](repeating: 0xAB, count: 32))
        let logs = LogRecorder()
        let chat = try await LinkedChatServer.start("chat.test", links: [peer], logs: logs)
        // Two failed attempts: the keeper goes on trying, and says why each time.
        #expect(await pollUntil { logs.messages(containing: "link failed").count >= 2 }, "\(logs.all)")
        let failure = try #require(logs.messages(containing: "link failed").first)
        #expect(failure.lowercased().contains("pin"), "\(failure)")
        #expect(await chat.server.linkedServers.isEmpty)
        await chat.stop()
        await ngircd.stop()
    }

    /// A private CA (`ca.pem`) and a certificate it issued for `localhost` (`leaf.pem`, its key
    /// `leaf.key`), made with the `openssl` tool in a fresh directory; `other-ca.pem` is a CA that
    /// issued nothing here.
    private static func privateCA() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("link-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            to: directory.appendingPathComponent("leaf.ext"), atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=Link Test CA",
            ],
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out", "other-ca.pem",
                "-days", "2", "-subj", "/CN=Another CA",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj",
                "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "leaf.pem", "-days", "2", "-extfile", "leaf.ext",
            ],
        ]
        for step in steps {
            let (status, output) = try ChildProcess.runToEnd("/usr/bin/openssl", step, in: directory.path)
            guard status == 0 else {
                throw ChildProcessError(description: "openssl \(step.joined(separator: " ")) failed: \(output)")
            }
        }
        return directory
    }

    /// Two chat-servers over TLS, the peer's chain checked against a private CA's file and its
    /// name (`localhost`) against the host linked to; another CA's file keeps the link down,
    /// and the log says why.
    @Test func chatServersLinkOverTLSCheckedAgainstACAFile() async throws {
        let ca = try Self.privateCA()
        defer { try? FileManager.default.removeItem(at: ca) }
        let tls = try StreamTLSConfiguration.server(
            certificatePEMFile: ca.appendingPathComponent("leaf.pem").path,
            privateKeyPEMFile: ca.appendingPathComponent("leaf.key").path)
        let two = try await LinkedChatServer.start(
            "two.test",
            links: ["one.test", "three.test"].map {
                ChatLinkPeer(name: $0, sentPassword: Self.password, expectedPassword: Self.password)
            }, tls: tls)
        let tlsPort = try #require(two.server.tlsPort)
        func peer(checkedAgainst file: String) -> ChatLinkPeer {
            var peer = ChatLinkPeer(
                name: "two.test", host: "localhost", port: tlsPort, sentPassword: Self.password,
                expectedPassword: Self.password)
            peer.security = .certificateAuthority(pemFile: ca.appendingPathComponent(file).path)
            return peer
        }
        let oneLogs = LogRecorder()
        let one = try await LinkedChatServer.start("one.test", links: [peer(checkedAgainst: "ca.pem")], logs: oneLogs)
        #expect(await pollUntil { await two.server.linkedServers == ["one.test"] }, "\(oneLogs.all)")
        let logs = LogRecorder()
        let three = try await LinkedChatServer.start(
            "three.test", links: [peer(checkedAgainst: "other-ca.pem")], logs: logs)
        #expect(await pollUntil { !logs.messages(containing: "link failed").isEmpty }, "\(logs.all)")
        #expect(logs.messages(containing: "link failed").first?.contains("trusted root") == true, "\(logs.all)")
        #expect(await two.server.linkedServers == ["one.test"])
        await three.stop()
        await one.stop()
        await two.stop()
    }

    @Test func ngircdLinksInWithSSLConnectToTheTLSPort() async throws {
        let store = try Self.certificate(for: "chat.test")
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let tls = try store.loadOrCreate(commonName: "chat.test").tls
        let chat = try await LinkedChatServer.start(
            "chat.test",
            links: [ChatLinkPeer(name: "ngircd.test", sentPassword: Self.password, expectedPassword: Self.password)],
            tls: tls
        )
        let tlsPort = try #require(chat.server.tlsPort)
        // ngIRCd will not start without a key of its own, even to connect out; it checks
        // nothing of ours here (SSLVerify = no), as the test is of chat-server's TLS port.
        let own = try Self.certificate(for: "ngircd.test")
        defer { try? FileManager.default.removeItem(at: own.directory) }
        let ngircd = try await NgircdServer.start(
            certificateFile: own.certificateFile.path, keyFile: own.privateKeyFile.path,
            extra: """
                [Server]
                Name = chat.test
                Host = 127.0.0.1
                Port = \(tlsPort)
                SSLConnect = yes
                SSLVerify = no
                MyPassword = \(Self.password)
                PeerPassword = \(Self.password)
                """)
        #expect(await pollUntil(30) { await chat.server.linkedServers == ["ngircd.test"] }, "\(ngircd.process.output)")
        try await Self.talk(chatPort: try #require(chat.server.port), ngircdPort: ngircd.port)
        await chat.stop()
        await ngircd.stop()
    }
}

/// Keeps what a logger is told, for tests that wait for a log line.
final class LogRecorder: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    /// Every line so far: the message and its metadata.
    var all: [String] { lines.withLockedValue { $0 } }

    /// The lines that contain `text`.
    func messages(containing text: String) -> [String] {
        all.filter { $0.contains(text) }
    }

    /// A handler that records into this recorder.
    func handler() -> Handler { Handler(recorder: self) }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let details = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            recorder.lines.withLockedValue { $0.append(([event.message.description] + details).joined(separator: " ")) }
        }
    }
}
