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

/// The chat client, in this process, against a scripted server on loopback: what it does when
/// a server behaves as some real ones do and ours does not.
@Suite(.timeLimit(.minutes(1)))
struct ChatClientSessionTests {
    /// ircd 2.11 says nothing at all to `CAP LS` before `NICK` and `USER`: with STARTTLS asked
    /// for, the client gives up after its timeout, says why, and never registers in plaintext.
    @Test func aServerSilentOnCAPEndsASTARTTLSAttemptWithAReason() async throws {
        try await ScriptedIRCServer.with(replies: { _ in [] }) { server in
            var options = options(server, nick: "alice", security: .startTLS)
            options.capabilityTimeout = 0.5
            let ui = RecordingUserInterface()
            _ = await ChatClient(options: options, ui: ui).run()
            #expect(ui.lines.contains { $0.contains("did not answer CAP LS") }, "\(ui.lines)")
            // The server may read the client's lines after the client has gone: wait for the end.
            #expect(await eventually { server.endedConnections == 1 })
            #expect(server.received == ["CAP LS 302"], "nothing after CAP LS, above all no NICK or USER in plaintext")
        }
    }

    /// `/nick` and `/quote` need not wait for registration, but under STARTTLS they wait for
    /// the upgrade: nothing typed goes out in plaintext, nor the server password.
    @Test func underSTARTTLSNothingTypedGoesOutBeforeTheUpgrade() async throws {
        try await ScriptedIRCServer.with(replies: { _ in [] }) { server in
            var options = options(server, nick: "alice", security: .startTLS)
            options.capabilityTimeout = 2
            options.password = "secret"
            let ui = RecordingUserInterface()
            ui.type("/quote PASS secret")
            ui.type("/nick bob")
            _ = await ChatClient(options: options, ui: ui).run()
            #expect(await eventually { server.endedConnections == 1 })
            #expect(server.received == ["CAP LS 302"], "\(server.received)")
        }
    }

    /// A line that comes in plaintext with `670`, in the same read, is an injection
    /// (CVE-2011-0411): the client refuses it and closes, and never handles it, though the
    /// library no longer holds it (it was read with `670`).
    @Test func aLineInjectedWith670IsRefused() async throws {
        try await ScriptedIRCServer.with(replies: { line in
            switch line {
            case "CAP LS 302": return [":srv CAP * LS :tls"]
            // One write, so one read brings both lines.
            case "STARTTLS": return [":srv 670 * :go ahead\r\n:srv 001 alice :Welcome, injected"]
            default: return []
            }
        }) { server in
            var options = options(server, nick: "alice", security: .startTLS)
            options.capabilityTimeout = 5
            let ui = RecordingUserInterface()
            _ = await ChatClient(options: options, ui: ui).run()
            #expect(ui.lines.contains { $0.contains("plaintext after 670") }, "\(ui.lines)")
            #expect(!ui.lines.contains { $0.contains("registered as") || $0.contains("injected") }, "\(ui.lines)")
            #expect(await eventually { server.endedConnections == 1 })
            #expect(server.received == ["CAP LS 302", "STARTTLS"], "nothing went out after STARTTLS")
        }
    }

    /// A server password (a bouncer's, say) goes out before the nickname, as RFC 2812 asks.
    @Test func aServerPasswordIsSentBeforeNickAndUser() async throws {
        try await ScriptedIRCServer.with(replies: { line in
            line.hasPrefix("USER ") ? [":srv 001 alice :Welcome"] : []
        }) { server in
            var options = options(server, nick: "alice")
            options.password = "zuser/net:two words"
            await interact(with: options) { ui in
                #expect(await eventually { ui.lines.contains { $0.contains("registered as alice") } }, "\(ui.lines)")
            }
            let registration = server.received.filter { !$0.hasPrefix("CAP ") }.prefix(3)
            #expect(
                Array(registration) == [
                    "PASS :zuser/net:two words", "NICK alice", "USER alice 0 * :StreamTaskKit chat",
                ], "\(server.received)")
        }
    }

    /// A server that says why and closes at once (a K-line, a throttle): the client shows the
    /// reason, though its own first lines could not be written to the closed connection. Many
    /// times, since whether a write fails first depends on timing.
    @Test func theReasonAServerGivesAsItClosesIsShown() async throws {
        for attempt in 1...10 {
            try await ScriptedIRCServer.with(
                greeting: ["ERROR :Closing Link: 127.0.0.1 (throttled)"], closeAfterGreeting: true, replies: { _ in [] }
            ) { server in
                let ui = RecordingUserInterface()
                _ = await ChatClient(options: options(server, nick: "alice"), ui: ui).run()
                #expect(
                    ui.lines.contains { $0.contains("server closing the link: Closing Link: 127.0.0.1 (throttled)") },
                    "attempt \(attempt): \(ui.lines)")
            }
        }
    }

    /// Kicked from the only channel it joined at start, the client still takes typed lines
    /// (it used to hold them back, waiting to be in a channel again).
    @Test func afterAKickFromTheOnlyChannelTypedLinesGoOn() async throws {
        let joins = NIOLockedValueBox(0)
        try await ScriptedIRCServer.with(replies: { line in
            if line.hasPrefix("USER ") { return [":srv 001 alice :Welcome"] }
            guard line == "JOIN #k" else { return [] }
            let first = joins.withLockedValue { count in
                count += 1
                return count == 1
            }
            return first ? [":alice!a@h JOIN #k", ":op!o@h KICK #k alice :out you go"] : [":alice!a@h JOIN #k"]
        }) { server in
            await interact(with: options(server, nick: "alice", channels: ["#k"])) { ui in
                #expect(
                    await eventually { ui.lines.contains { $0.contains("op kicked you from #k (out you go)") } },
                    "\(ui.lines)")
                ui.type("/join #k")
                #expect(
                    await eventually { server.received.filter { $0 == "JOIN #k" }.count == 2 }, "\(server.received)")
            }
        }
    }

    /// When every nickname the client tries is taken, `/nick` typed before registration is sent
    /// at once (it used to wait for a registration that could not happen).
    @Test func nickTypedBeforeRegistrationIsSent() async throws {
        try await ScriptedIRCServer.with(replies: { line in
            guard line.hasPrefix("NICK ") else { return [] }
            let nick = String(line.dropFirst(5))
            return nick == "freeone"
                ? [":srv 001 freeone :Welcome"] : [":srv 433 * \(nick) :Nickname is already in use"]
        }) { server in
            await interact(with: options(server, nick: "taken")) { ui in
                #expect(await eventually { ui.lines.contains { $0.contains("no free nickname") } }, "\(ui.lines)")
                ui.type("/nick freeone")
                #expect(await eventually { ui.lines.contains { $0.contains("registered as freeone") } }, "\(ui.lines)")
            }
            #expect(server.received.filter { $0.hasPrefix("NICK ") }.last == "NICK freeone")
        }
    }

    /// The client's options for `server`: no proxy, no reconnection.
    private func options(
        _ server: ScriptedIRCServer, nick: String, channels: [String] = [], security: ChatClientOptions.Security = .none
    ) -> ChatClientOptions {
        var options = ChatClientOptions(
            target: .host("127.0.0.1", port: server.port), security: security, nick: nick, channels: channels,
            proxy: .direct)
        options.reconnects = false
        return options
    }

    /// Runs the client while `body` watches and types, then quits and waits for it to end.
    private func interact(with options: ChatClientOptions, _ body: (RecordingUserInterface) async -> Void) async {
        let ui = RecordingUserInterface()
        let client = ChatClient(options: options, ui: ui)
        let run = Task { await client.run() }
        await body(ui)
        ui.type("/quit")
        ui.end()
        _ = await run.value
    }
}

/// Collects what the client shows; lines are typed with ``type(_:)``.
final class RecordingUserInterface: ChatUserInterface {
    private let feed = ChatInputFeed()
    var inputs: AsyncStream<ChatUserInput> { feed.inputs }
    var inputHasEnded: Bool { feed.hasEnded }
    private let shown = NIOLockedValueBox<[String]>([])
    var isTerminal: Bool { false }

    /// Every line shown so far.
    var lines: [String] { shown.withLockedValue { $0 } }

    func type(_ line: String) { feed.type(line) }
    func end() { feed.end() }
    func show(_ line: String) { shown.withLockedValue { $0.append(line) } }
    func setPrompt(_ prompt: String) {}
    func restore() {}
}

/// One IRC connection on loopback answered line by line by a script.
final class ScriptedIRCServer: Sendable {
    let listener = StreamListener(
        host: "127.0.0.1", port: 0, session: StreamSession(configuration: .init(proxy: .direct)))
    private let lines = NIOLockedValueBox<[String]>([])
    private let ended = NIOLockedValueBox(0)
    var port: Int { listener.port ?? 0 }
    /// How many connections have ended (read to their end, or closed after the greeting).
    var endedConnections: Int { ended.withLockedValue { $0 } }
    /// The lines received so far, without their line ends.
    var received: [String] { lines.withLockedValue { $0 } }
    /// A reply that closes the connection, without a word, instead of sending a line.
    static let closeConnection = "<close the connection>"

    /// Runs `body` with a server that sends `greeting` as a client connects (and then closes,
    /// with `closeAfterGreeting`), and answers each line with the lines `replies` returns.
    static func with(
        greeting: [String] = [],
        closeAfterGreeting: Bool = false,
        replies: @escaping @Sendable (String) -> [String],
        _ body: (ScriptedIRCServer) async throws -> Void
    ) async throws {
        let server = ScriptedIRCServer()
        try await server.listener.start()
        let serving = Task { await server.serve(greeting: greeting, thenClose: closeAfterGreeting, replies) }
        do {
            try await body(server)
        } catch {
            serving.cancel()
            await server.listener.shutdown()
            throw error
        }
        serving.cancel()
        await server.listener.shutdown()
    }

    private func serve(greeting: [String], thenClose: Bool, _ replies: @Sendable (String) -> [String]) async {
        for await task in listener.connections {
            for line in greeting {
                _ = try? await task.write(Data((line + "\r\n").utf8), timeout: 5)
            }
            if thenClose {
                task.cancel()
                ended.withLockedValue { $0 += 1 }
                continue
            }
            var framer = IRCLineFramer(maxLineLength: 8192)
            reading: while let (data, atEOF) = try? await task.readData(ofMinLength: 1, maxLength: 4096, timeout: 0) {
                if let data { framer.append(data) }
                while let event = framer.next() {
                    guard case .line(let bytes) = event else { continue }
                    let line = String(decoding: bytes, as: UTF8.self)
                    lines.withLockedValue { $0.append(line) }
                    for reply in replies(line) {
                        if reply == Self.closeConnection { break reading }
                        _ = try? await task.write(Data((reply + "\r\n").utf8), timeout: 5)
                    }
                }
                if atEOF { break }
            }
            task.cancel()
            ended.withLockedValue { $0 += 1 }
        }
    }
}
