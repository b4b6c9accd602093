//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import StreamTaskTestSupport
import Testing

@testable import ChatClientCore

/// A client that never got on a server says why and fails, however it stops: it does not say
/// "disconnected" when nothing ever connected, and input that ends at once (standard input at
/// `/dev/null`) lets the attempt finish so its outcome is on screen.
@Suite(.timeLimit(.minutes(1)))
struct ChatClientNeverConnectedTests {
    @Test func inputThatEndsAtOnceLetsTheAttemptFailAloud() async throws {
        let closed = try ClosedPort()
        let ui = RecordingUserInterface()
        ui.end()
        let status = try await ChatClientRefusalTests.runUntilItStops(
            ChatClient(options: ChatClientRefusalTests.options(port: closed.port, security: .none), ui: ui), ui: ui)
        #expect(status == 1, "\(ui.lines)")
        #expect(ui.lines.contains { $0.contains("127.0.0.1:\(closed.port)") && $0.contains("refused") }, "\(ui.lines)")
        #expect(ui.lines.last?.contains("never connected to 127.0.0.1:\(closed.port)") == true, "\(ui.lines)")
        #expect(!ui.lines.contains { $0.contains("disconnected") || $0.contains("trying again") }, "\(ui.lines)")
    }

    @Test func retriesSayTheyCouldNotConnectAndQuittingFails() async throws {
        let closed = try ClosedPort()
        let ui = RecordingUserInterface()
        let client = ChatClient(options: ChatClientRefusalTests.options(port: closed.port, security: .none), ui: ui)
        let result = NIOLockedValueBox<Int32?>(nil)
        let run = Task {
            let status = await client.run()
            result.withLockedValue { $0 = status }
        }
        #expect(await eventually(20) { ui.lines.contains { $0.contains("could not connect; trying again in 1 s") } })
        ui.type("/quit")
        await run.value
        #expect(result.withLockedValue { $0 } == 1, "\(ui.lines)")
        #expect(!ui.lines.contains { $0.contains("disconnected") }, "\(ui.lines)")
        #expect(ui.lines.last?.contains("never connected to 127.0.0.1:\(closed.port)") == true, "\(ui.lines)")
    }
}
