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
import StreamTaskKit

/// A bare IRC connection for tests: sends lines as given and reads messages one by one, so a
/// test sees exactly what the server sent.
actor IRCTestClient {
    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    struct UnexpectedReply: Error, CustomStringConvertible {
        let description: String
    }

    let task: StreamTask
    private var framer = IRCLineFramer(maxLineLength: 64 * 1024)
    /// Every message read so far, in order.
    private(set) var received: [IRCMessage] = []
    private(set) var closed = false
    /// Whether the server's PINGs are answered as they are read, as a real client does.
    private(set) var answersPings: Bool

    /// Connects to `host`:`port`.
    init(
        host: String = "127.0.0.1", port: Int,
        session: StreamSession = StreamSession(configuration: .init(proxy: .direct)), answersPings: Bool = true
    ) {
        task = session.streamTask(withHostName: host, port: port)
        task.resume()
        self.answersPings = answersPings
    }

    /// Stops answering the server's PINGs (to let the idle timeout strike).
    func stopAnsweringPings() {
        answersPings = false
    }

    /// Sends one line (CR LF added).
    func send(_ line: String) async throws {
        try await task.write(Data((line + "\r\n").utf8), timeout: 10)
    }

    /// Sends bytes as they are.
    func sendRaw(_ bytes: [UInt8]) async throws {
        try await task.write(Data(bytes), timeout: 10)
    }

    /// The next message, or `nil` at end of stream; throws after `timeout` seconds.
    func next(timeout: TimeInterval = 10) async throws -> IRCMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let event = framer.next() {
                guard case .line(let bytes) = event, let message = try? IRCMessage(parsing: bytes, maxLength: 8190)
                else { continue }
                received.append(message)
                if answersPings, message.command == "PING" {
                    try await send("PONG :\(message.parameters.first ?? "")")
                }
                return message
            }
            if closed { return nil }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Timeout(description: "no message within \(timeout) s") }
            let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 65536, timeout: remaining)
            if let data { framer.append(data) }
            if atEOF { closed = true }
        }
    }

    /// Reads until a message matches; returns it. Throws at end of stream or after `timeout`.
    @discardableResult
    func waitFor(_ what: String, timeout: TimeInterval = 10, _ matches: (IRCMessage) -> Bool) async throws -> IRCMessage
    {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            guard let message = try await next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else {
                throw Timeout(description: "the connection ended before \(what)")
            }
            if matches(message) { return message }
        }
    }

    /// Reads until `command` arrives.
    @discardableResult
    func waitFor(command: String, timeout: TimeInterval = 10) async throws -> IRCMessage {
        try await waitFor(command, timeout: timeout) { $0.command == command }
    }

    /// Reads until `command` arrives from `nick`.
    @discardableResult
    func waitFor(command: String, from nick: String, timeout: TimeInterval = 10) async throws -> IRCMessage {
        try await waitFor("\(command) from \(nick)", timeout: timeout) {
            $0.command == command && $0.sourceNickname == nick
        }
    }

    /// Reads until the end of stream; returns what arrived meanwhile.
    func readToEnd(timeout: TimeInterval = 10) async throws -> [IRCMessage] {
        var messages: [IRCMessage] = []
        while let message = try await next(timeout: timeout) { messages.append(message) }
        return messages
    }

    /// Registers as `nick` and waits for the end of the MOTD.
    func register(_ nick: String) async throws {
        try await send("NICK \(nick)")
        try await send("USER \(nick) 0 * :\(nick) test")
        try await waitFor("the end of the MOTD") { $0.command == "376" || $0.command == "422" }
    }

    /// After capability negotiation (and STARTTLS): registers as `nick`, ends the negotiation,
    /// and checks that the welcome names `nick`.
    func finishRegistration(_ nick: String) async throws {
        try await send("NICK \(nick)")
        try await send("USER \(nick) 0 * :\(nick)")
        try await send("CAP END")
        let welcome = try await waitFor(command: "001")
        guard welcome.parameters.first == nick else {
            throw UnexpectedReply(description: "welcomed as \(welcome.parameters.first ?? "?"), not \(nick)")
        }
    }

    /// Joins `channel` and waits for the end of its names.
    func join(_ channel: String) async throws {
        try await send("JOIN \(channel)")
        try await waitFor(command: "366")
    }

    func close() {
        task.cancel()
    }
}
