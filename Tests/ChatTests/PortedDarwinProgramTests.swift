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

/// Darwin programs written for `URLSession` (Tests/DarwinPrograms), ported by
/// scripts/port-from-darwin.sh and nothing else, run on Linux against real peers.
@Suite(.timeLimit(.minutes(2))) struct PortedDarwinProgramTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built program is exactly what the script makes of the Darwin source.
    @Test(arguments: [
        ("IRCBot.swift", "irc-bot"), ("BonjourChat.swift", "bonjour-chat"), ("SMTPMailer.swift", "smtp-mailer"),
        ("UpgradeClient.swift", "upgrade-client"), ("LineClient.swift", "line-client"),
        ("BonjourAnnouncer.swift", "bonjour-announcer"), ("BonjourStreams.swift", "bonjour-streams"),
        ("StreamsMailer.swift", "streams-mailer"), ("BonjourEchoServer.swift", "bonjour-echo-server"),
        ("RunLoopIRCClient.swift", "runloop-irc-client"), ("CheckedLineClient.swift", "checked-line-client"),
    ])
    func theBuiltCopyIsTheScriptsOutput(darwin: String, ported: String) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ported-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.copyItem(
            at: Self.root.appendingPathComponent("Tests/DarwinPrograms/\(darwin)"), to: scratch)
        let result = await RouteLab.run([
            "bash", Self.root.appendingPathComponent("scripts/port-from-darwin.sh").path, scratch.path,
        ])
        #expect(result.status == 0, "\(result.output)")
        let expected = try String(contentsOf: scratch, encoding: .utf8)
        let built = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/Ported/\(ported)/main.swift"), encoding: .utf8)
        #expect(built == expected, "Examples/Ported/\(ported)/main.swift is not the script's output: port it again")
    }

    /// The IRC bot registers on ngIRCd, joins a channel, says its line to a real client there,
    /// and quits; its delegate hears the end and the metrics on its OperationQueue.
    @Test func theIRCBotTalksToNgircd() async throws {
        try await Self.withNgircdListener(in: "#ported") { ngircd, listener in
            let bot = try ObservedProcess(
                try BuiltProducts.path("ported-irc-bot"),
                ["127.0.0.1", "\(ngircd.port)", "darwinbot", "#ported", "hello from Darwin code"])
            let heard = try await listener.waitFor(command: "PRIVMSG")
            #expect(heard.sourceNickname == "darwinbot")
            #expect(heard.parameters == ["#ported", "hello from Darwin code"])
            let quit = try await listener.waitFor(command: "QUIT")
            #expect(quit.sourceNickname == "darwinbot")
            #expect(await bot.waitForExit(), "\(bot.output)")
            #expect(bot.child.exitCode == 0, "\(bot.output)")
            let output = bot.output
            for line in [
                "registered as darwinbot", "joined #ported", "the server closed the connection", "metrics collected",
                "IRC connection of darwinbot completed, state 3",
            ] {
                #expect(output.contains(line), "\(line) missing from: \(output)")
            }
            await bot.stop()
        }
    }

    /// Runs `body` with ngIRCd started and a client of the test's own registered on it and in
    /// `channel`; stops both after, and on a failure records what ngIRCd said.
    static func withNgircdListener(
        in channel: String, _ body: (NgircdServer, IRCTestClient) async throws -> Void
    ) async throws {
        let ngircd = try await NgircdServer.start()
        do {
            let listener = IRCTestClient(port: ngircd.port)
            try await listener.register("listener")
            try await listener.join(channel)
            try await body(ngircd, listener)
            await listener.close()
            await ngircd.stop()
        } catch {
            Issue.record("ngircd said: \(ngircd.process.output.suffix(2000))")
            await ngircd.stop()
            throw error
        }
    }

    /// The run-loop IRC client talks to ngIRCd over captured streams scheduled in its network
    /// thread's run loop: with `RunLoop.current.run()` alone, which must keep going while the
    /// streams are open and return once they are closed, and turning the run loop with
    /// `run(mode:before:)`, which must return after each delivery.
    @Test(arguments: [[], ["--turns"]])
    func theRunLoopClientTalksToNgircdFromItsNetworkThread(_ options: [String]) async throws {
        try await Self.withNgircdListener(in: "#runloop") { ngircd, listener in
            let client = try ObservedProcess(
                try BuiltProducts.path("ported-runloop-irc-client"),
                ["127.0.0.1", "\(ngircd.port)", "looper", "#runloop", "heard through a run loop"] + options)
            let heard = try await listener.waitFor(command: "PRIVMSG")
            #expect(heard.sourceNickname == "looper")
            #expect(heard.parameters == ["#runloop", "heard through a run loop"])
            #expect(await client.waitForExit(), "\(client.output)")
            #expect(client.child.exitCode == 0, "\(client.output)")
            let output = client.output
            var expected = ["captured the streams", "registered as looper", "joined #runloop"]
            expected +=
                options.isEmpty ? ["the run loop ran dry, finished: true"] : ["welcomed: true", "finished: true"]
            for line in expected {
                #expect(output.contains(line), "\(line) missing from: \(output)")
            }
            await client.stop()
        }
    }

    /// Refused, the bot's `error as? URLError` is `.cannotConnectToHost` in NSURLErrorDomain.
    @Test func theIRCBotSeesApplesErrorForARefusedConnection() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let bot = try ObservedProcess(
            try BuiltProducts.path("ported-irc-bot"), ["127.0.0.1", "\(closed.port)", "x", "#x", "x"])
        #expect(await bot.waitForExit(), "\(bot.output)")
        #expect(bot.child.exitCode == 2, "\(bot.output)")
        #expect(
            bot.output.contains("cannot connect: NSURLErrorDomain \(NSURLErrorCannotConnectToHost)"), "\(bot.output)")
        await bot.stop()
    }

    /// The Bonjour client browses with NetServiceBrowser, finds chat-server advertised over
    /// DNS-SD (a real avahi-daemon), connects with streamTask(with: service), and says its line
    /// to a client there.
    @Test func theBonjourClientFindsChatServerAndTalks() async throws {
        let name = "ported \(UInt32.random(in: 0...UInt32.max))"
        let server = try ObservedProcess(
            try BuiltProducts.path("chat-server"), ["--host", "127.0.0.1", "--port", "0", "--no-tls", "--name", name])
        defer { Task { await server.stop() } }
        #expect(await server.waitForOutput(containing: "advertised as"), "\(server.output)")
        let line = try #require(server.output.split(separator: "\n").first { $0.hasPrefix("listening on ") })
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        let listener = IRCTestClient(port: port)
        try await listener.register("listener")
        try await listener.join("#bonjour")

        let client = try ObservedProcess(
            try BuiltProducts.path("ported-bonjour-chat"), [name, "darwinbonjour", "#bonjour", "found you"])
        let heard = try await listener.waitFor("the Bonjour client's line", timeout: 30) { $0.command == "PRIVMSG" }
        #expect(heard.sourceNickname == "darwinbonjour")
        #expect(heard.parameters == ["#bonjour", "found you"])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        #expect(client.child.exitCode == 0, "\(client.output)")
        for expected in ["found \(name) (_irc._tcp.", "registered as darwinbonjour", "chat with \(name) completed"] {
            #expect(client.output.contains(expected), "\(expected) missing from: \(client.output)")
        }
        await client.stop()
        await listener.close()
    }

    /// The Bonjour streams client finds chat-server over DNS-SD, takes its streams with
    /// `getInputStream(_:outputStream:)`, and converses from a StreamDelegate on the main run
    /// loop: it registers, quits, prints the server's lines, and ends at the end of the stream.
    @Test func theBonjourStreamsClientTalksThroughGetInputStream() async throws {
        let name = "streams \(UInt32.random(in: 0...UInt32.max))"
        let server = try ObservedProcess(
            try BuiltProducts.path("chat-server"), ["--host", "127.0.0.1", "--port", "0", "--no-tls", "--name", name])
        defer { Task { await server.stop() } }
        #expect(await server.waitForOutput(containing: "advertised as"), "\(server.output)")

        let client = try ObservedProcess(
            try BuiltProducts.path("ported-bonjour-streams"),
            ["_irc._tcp.", name, "NICK darwinstreams", "USER darwinstreams 0 * :Foundation streams", "QUIT :bye"])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        #expect(client.child.exitCode == 0, "\(client.output)")
        let lines = client.output.split(separator: "\n").map(String.init)
        for expected in ["found \(name)", "input opened", "output opened", "sent every line"] {
            #expect(lines.contains(expected), "\(expected) missing from: \(client.output)")
        }
        #expect(lines.contains { $0.hasPrefix("< ") && $0.contains(" 001 darwinstreams ") }, "\(client.output)")
        #expect(lines.contains { $0.hasPrefix("< ERROR ") }, "\(client.output)")
        #expect(lines.last == "end of stream", "\(client.output)")
        await client.stop()
    }

    /// The Bonjour echo server publishes with `.listenForConnections` on a port the system picks
    /// and answers through the streams its service hands over: first the Bonjour streams client,
    /// which finds it through avahi and takes its streams with `getInputStream`, then a plain TCP
    /// client at the port it published. After its second client it stops and exits.
    @Test func theBonjourEchoServerAnswersThroughTheStreamsItsServiceHandsOver() async throws {
        let type = "_echo\(UInt16.random(in: 1000...9999))._tcp."
        let name = "echo \(UInt32.random(in: 0...UInt32.max))"
        let server = try ObservedProcess(try BuiltProducts.path("ported-bonjour-echo-server"), [type, name, "2"])
        defer { Task { await server.stop() } }
        #expect(await server.waitForOutput(containing: "published \(name) on port "), "\(server.output)")
        let published = server.output.split(separator: "\n").first { $0.hasPrefix("published ") }
        let port = try #require(published?.split(separator: " ").last.flatMap { Int($0) }, "\(server.output)")

        let client = try ObservedProcess(
            try BuiltProducts.path("ported-bonjour-streams"), [type, name, "hello", "QUIT"])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        #expect(client.child.exitCode == 0, "\(client.output)")
        let lines = client.output.split(separator: "\n").map(String.init)
        for expected in ["found \(name)", "sent every line", "< echo: hello", "< bye", "end of stream"] {
            #expect(lines.contains(expected), "\(expected) missing from: \(client.output)")
        }

        let task = StreamSession.shared.streamTask(withHostName: "127.0.0.1", port: port)
        task.resume()
        try await task.write(Data("second\r\nQUIT\r\n".utf8), timeout: 10)
        var reply = Data()
        while true {
            let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 1024, timeout: 10)
            reply += data ?? Data()
            if atEOF { break }
        }
        task.cancel()
        #expect(String(decoding: reply, as: UTF8.self) == "echo: second\r\nbye\r\n")

        #expect(await server.waitForExit(seconds: 20), "\(server.output)")
        #expect(server.child.exitCode == 0, "\(server.output)")
        for expected in [
            "client 1 connected", "client 1 said: hello", "client 1 done", "client 2 said: second", "client 2 done",
            "stopped",
        ] {
            #expect(server.output.contains(expected), "\(expected) missing from: \(server.output)")
        }
        await client.stop()
    }

    /// Without its Info.plist, the upgrade client meets App Transport Security's defaults, as it
    /// would on Darwin: plaintext HTTP to an IP address is refused before anything is sent.
    @Test func withoutItsInfoPlistTheUpgradeClientIsRefusedPlaintextHTTP() async throws {
        // Nothing listens on port 9 here: a connection attempt would end in -1004, not -1022.
        let client = try ObservedProcess(
            try BuiltProducts.path("ported-upgrade-client"), ["http://127.0.0.1:9/chat", "x-test", "unused"])
        #expect(await client.waitForExit(), "\(client.output)")
        #expect(client.child.exitCode != 0)
        #expect(client.output.contains("NSURLErrorDomain -1022"), "\(client.output)")
    }

    /// A copy of the built `executable` in a directory of its own with `plist` (from
    /// Tests/DarwinPrograms) beside it as `Info.plist`, where Foundation's `Bundle.main` reads it.
    static func withInfoPlist(_ plist: String, executable: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent(executable)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: try BuiltProducts.path(executable)), to: copy)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("Tests/DarwinPrograms/\(plist)"),
            to: directory.appendingPathComponent("Info.plist"))
        return copy
    }

    /// The upgrade client's data task gets a 101 from a Python HTTP server and becomes a stream
    /// task; the server's first bytes, sent with its response, wait while the task is suspended;
    /// then the connection is handed over as Foundation streams, which reach the server's echo.
    @Test func theUpgradeClientBecomesAStreamAndCapturesItsStreams() async throws {
        let peer = try ObservedProcess(
            "/usr/bin/env",
            [
                "python3", Self.root.appendingPathComponent("Tests/StreamTaskKitTests/Peers/http_peer.py").path,
                "upgrade-with-trailing",
            ])
        defer { Task { await peer.stop() } }
        #expect(await peer.waitForOutput(containing: "\n"), "\(peer.output)")
        let port = try #require(peer.output.split(separator: "\n").first.flatMap { Int($0) }, "\(peer.output)")
        // As a Darwin app ships its Info.plist, whose App Transport Security settings allow
        // plaintext HTTP to a local address, the port sits beside its own.
        let bundle = try Self.withInfoPlist("UpgradeClient-Info.plist", executable: "ported-upgrade-client")
        defer { try? FileManager.default.removeItem(at: bundle.deletingLastPathComponent()) }
        let client = try ObservedProcess(
            bundle.path, ["http://127.0.0.1:\(port)/chat", "x-test", "through the streams"])
        #expect(await client.waitForExit(), "\(client.output)")
        let output = client.output
        #expect(client.child.exitCode == 0, "\(output)")
        let expected = [
            "switching protocols to x-test", "upgrade request became a stream task", "upgrade request completed",
            "resuming", "first bytes after resume: EARLY-BYTES", "captured the streams of the upgraded connection",
            "wrote 20 bytes to the output stream; the server echoed: through the streams", "session invalidated",
        ]
        for line in expected {
            #expect(output.contains(line + "\n"), "\(line) missing from: \(output)")
        }
        // The held read completed only after resume().
        let resumed = try #require(output.range(of: "resuming\n"))
        let firstBytes = try #require(output.range(of: "first bytes after resume"))
        #expect(resumed.upperBound <= firstBytes.lowerBound, "\(output)")
        #expect(peer.output.contains("request GET /chat HTTP/1.1"), "\(peer.output)")
        await client.stop()
    }
}
