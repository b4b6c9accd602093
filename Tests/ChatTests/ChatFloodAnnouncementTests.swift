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
import Testing

@testable import ChatClientCore

/// The chat server announces the flood limits it enforces (`FLOOD` in `005`), and the client
/// takes them.
@Suite(.timeLimit(.minutes(1)))
struct ChatFloodAnnouncementTests {
    /// What `005` says of flood control, for a server configured by `configure`.
    func announced(_ configure: (inout ChatServerConfiguration) -> Void) async throws -> [String] {
        try await ChatServerFixture.with(configure) { _, port in
            let client = IRCTestClient(port: port)
            try await client.send("NICK flood")
            try await client.send("USER flood 0 * :flood test")
            let isupport = try await client.waitFor(command: "005")
            await client.close()
            return isupport.parameters.filter { $0.hasPrefix("FLOOD") }
        }
    }

    @Test func theServerAnnouncesTheLimitsItEnforces() async throws {
        #expect(try await announced { _ in } == ["FLOOD=10,2,30"])
        let tight = try await announced {
            $0.floodBurst = 3
            $0.floodLinesPerSecond = 0.5
            $0.floodQueuedLines = 12
        }
        #expect(tight == ["FLOOD=3,0.5,12"])
        #expect(try await announced { $0.floodBurst = nil }.isEmpty, "flood control off: nothing to announce")
    }

    @Test func theTokenRoundTripsAndRefusesNonsense() {
        let limits = IRCFloodLimits(burst: 3, linesPerSecond: 0.5, queuedLines: 12)
        #expect(IRCFloodLimits(isupportValue: limits.isupportValue) == limits)
        #expect(IRCFloodLimits.protocolDefaults.isupportValue == "10,2,30")
        for bad in ["", "10,2", "10,2,30,4", "0,2,30", "10,0,30", "10,x,30", "10,2,-1", "10,inf,30"] {
            #expect(IRCFloodLimits(isupportValue: bad) == nil, "\(bad)")
        }
    }

    @Test func theClientTakesTheAnnouncedLimits() {
        var state = ChatClientState(nick: "alice", autojoin: [])
        _ = state.handle(
            IRCMessage(command: "005", parameters: ["alice", "CHANTYPES=#", "FLOOD=4,1,10", "are supported"]))
        #expect(state.floodLimits == IRCFloodLimits(burst: 4, linesPerSecond: 1, queuedLines: 10))
        state.connectionEnded()
        #expect(state.floodLimits == .protocolDefaults, "the next server says its own, or the defaults hold")
    }
}
