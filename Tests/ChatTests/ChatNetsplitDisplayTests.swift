//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatClientCore
import ChatProtocol
import Testing

/// A netsplit and its healing, as the chat client shows them: one line each.
@Suite struct ChatNetsplitDisplayTests {
    private var state = ChatClientState(nick: "alice")

    /// The text of the lines shown for `lines`, then for the flush after them.
    private mutating func shown(_ lines: [String]) throws -> [String] {
        var effects: [ChatClientState.Effect] = []
        for line in lines { effects += state.handle(try IRCMessage(parsing: line)) }
        effects += state.flushNetsplits()
        return effects.compactMap { effect in
            if case .show(let line) = effect { return line.text }
            return nil
        }
    }

    @Test mutating func aSplitIsOneLineAndItsHealingAnother() throws {
        let quits = (1...30).map { ":user\($0)!u@h QUIT :hub.test leaf.test" }
        #expect(
            try shown(quits) == [
                "netsplit, hub.test <-> leaf.test: user1, user2, user3, user4, user5, user6, user7, user8, user9, user10, user11, user12 and 18 more quit"
            ])
        let joins = (1...3).flatMap { [":user\($0)!u@h JOIN #a", ":user\($0)!u@h JOIN #b"] }
        #expect(try shown(joins) == ["netsplit over, hub.test <-> leaf.test: user1, user2, user3 back in #a, #b"])
        // Once back, a join is an ordinary one again.
        #expect(try shown([":user1!u@h JOIN #c"]) == ["user1 joined #c"])
    }

    @Test mutating func anotherLineFirstShowsTheSplitGatheredSoFar() throws {
        #expect(
            try shown([":bob!u@h QUIT :hub.test leaf.test", ":carol!u@h PRIVMSG #a :still here"]) == [
                "netsplit, hub.test <-> leaf.test: bob quit", "still here",
            ])
    }

    @Test mutating func ordinaryQuitsAreNotSplits() throws {
        #expect(try shown([":bob!u@h QUIT :Quit: see you tomorrow"]) == ["bob quit (Quit: see you tomorrow)"])
        #expect(try shown([":bob!u@h QUIT :hub.test"]) == ["bob quit (hub.test)"])
        #expect(try shown([":bob!u@h QUIT :a.b c.d e.f"]) == ["bob quit (a.b c.d e.f)"])
        #expect(try shown([":bob!u@h QUIT :Ping timeout: 120 seconds"]) == ["bob quit (Ping timeout: 120 seconds)"])
        #expect(!ChatNetsplitTracker.isSplitReason("http://x.y a.b"))
        #expect(ChatNetsplitTracker.isSplitReason("irc-1.example.net irc_2.example.org"))
    }

    @Test mutating func twoSplitsAtOnceAreTwoLines() throws {
        #expect(
            try shown([":bob!u@h QUIT :a.test b.test", ":carol!u@h QUIT :a.test c.test"]) == [
                "netsplit, a.test <-> b.test: bob quit", "netsplit, a.test <-> c.test: carol quit",
            ])
    }

    @Test func memoryOfTheGoneIsBounded() {
        var tracker = ChatNetsplitTracker()
        for index in 0..<(ChatNetsplitTracker.memory + 500) {
            _ = tracker.quit(nick: "n\(index)", folded: "n\(index)", reason: "a.test b.test")
        }
        _ = tracker.flush()
        #expect(tracker.join(nick: "n0", folded: "n0", channel: "#a") != nil)
        #expect(tracker.join(nick: "n1200", folded: "n1200", channel: "#a") == nil, "past the bound, not remembered")
    }
}
