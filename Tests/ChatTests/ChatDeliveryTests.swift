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
import StreamTaskTestSupport
import Testing

@testable import ChatClientCore

/// The chat client never loses a line silently: what a dropped connection may have lost is
/// named and kept, and `/resend` sends it once reconnected.
@Suite(.timeLimit(.minutes(1)))
struct ChatDeliveryTests {
    func message(_ text: String) -> IRCMessage { IRCMessage(command: "PRIVMSG", parameters: ["bob", text]) }

    @Test func aPongConfirmsTheLinesWrittenBeforeItsPing() throws {
        var ledger = ChatDeliveryLedger()
        ledger.written(message("one"))
        ledger.written(message("two"))
        let request = ledger.confirmationRequest()
        let ping = try #require(request)
        let second = ledger.confirmationRequest()
        #expect(second == nil, "one confirmation at a time")
        ledger.written(message("three"))
        let token = try #require(ping.parameters.first)
        let foreign = ledger.received(IRCMessage(command: "PONG", parameters: ["srv", "someone else's"]))
        #expect(!foreign)
        let ours = ledger.received(IRCMessage(command: "PONG", parameters: ["srv", token]))
        #expect(ours)
        #expect(ledger.unconfirmed == [message("three")])
        let lost = ledger.connectionEnded()
        #expect(lost == [message("three")])
        let kept = ledger.takeUndelivered()
        #expect(kept == [message("three")])
        let again = ledger.takeUndelivered()
        #expect(again.isEmpty)
    }

    @Test func linesNotWrittenAndLinesNotConfirmedAreKeptInOrder() {
        var ledger = ChatDeliveryLedger()
        ledger.notWritten(message("first"))
        ledger.written(message("second"))
        _ = ledger.connectionEnded()
        let kept = ledger.takeUndelivered()
        #expect(kept == [message("first"), message("second")])
        ledger.written(message("third"))
        ledger.allConfirmed()
        let lost = ledger.connectionEnded()
        #expect(lost.isEmpty)
    }

    /// Against a server that confirms the first lines and then closes without a word: the
    /// client names the two lines it cannot know arrived, reconnects, and `/resend` sends them.
    @Test func linesADropMayHaveLostAreNamedAndResent() async throws {
        let connections = NIOLockedValueBox(0)
        try await ScriptedIRCServer.with(replies: { line in
            if line.hasPrefix("USER ") {
                connections.withLockedValue { $0 += 1 }
                return [":srv 001 alice :Welcome"]
            }
            guard line.hasPrefix("PING ") else { return [] }
            // The first connection confirms its first lines, then drops at the next request.
            if connections.withLockedValue({ $0 }) == 1 && line.hasSuffix("stk-delivered-2") {
                return [ScriptedIRCServer.closeConnection]
            }
            return [":srv PONG srv :\(line.split(separator: " ").last.map { $0.drop { $0 == ":" } } ?? "")"]
        }) { server in
            var options = ChatClientOptions(
                target: .host("127.0.0.1", port: server.port), security: .none, nick: "alice", proxy: .direct)
            options.pacedLinesPerSecond = 50
            let ui = RecordingUserInterface()
            let run = Task { await ChatClient(options: options, ui: ui).run() }
            #expect(await eventually(20) { ui.lines.contains { $0.contains("registered as alice") } }, "\(ui.lines)")
            ui.type("/msg bob one")
            ui.type("/msg bob two")
            #expect(await eventually(20) { server.received.contains("PING stk-delivered-1") }, "\(server.received)")
            ui.type("/msg bob three")
            ui.type("/msg bob four")
            let named = await eventually(20) { ui.lines.contains { $0.contains("may not have got") } }
            #expect(named, "\(ui.lines)")
            let report = ui.lines.first { $0.contains("may not have got") } ?? ""
            #expect(report.contains("these 2 lines") && report.contains("\"three\", \"four\""), "\(report)")
            #expect(!report.contains("\"one\"") && !report.contains("\"two\""), "\(report)")
            #expect(await eventually(20) { connections.withLockedValue { $0 } == 2 }, "\(ui.lines)")
            ui.type("/resend")
            #expect(await eventually(20) { server.received.filter { $0 == "PRIVMSG bob three" }.count == 2 })
            #expect(await eventually(20) { server.received.filter { $0 == "PRIVMSG bob four" }.count == 2 })
            #expect(server.received.filter { $0 == "PRIVMSG bob one" }.count == 1, "\(server.received)")
            ui.type("/quit")
            ui.end()
            _ = await run.value
        }
    }
}
