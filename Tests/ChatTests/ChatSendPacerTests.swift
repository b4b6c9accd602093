//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Testing

@testable import ChatClientCore

/// The pacing of what the user sends, driven as a value with a clock of the test's own.
@Suite struct ChatSendPacerTests {
    let start = ContinuousClock.now

    @Test func theBurstGoesAtOnceThenLinesGoAtTheRate() {
        var pacer = ChatSendPacer(burst: 3, linesPerSecond: 2, now: start)
        for _ in 0..<3 { #expect(pacer.nextLine(now: start) == .zero) }
        // The fourth waits for half a second's refill, the fifth for a whole second.
        #expect(pacer.nextLine(now: start) == .milliseconds(500))
        #expect(pacer.nextLine(now: start) == .seconds(1))
    }

    @Test func timeRefillsTheAllowanceUpToTheBurst() {
        var pacer = ChatSendPacer(burst: 2, linesPerSecond: 4, now: start)
        _ = pacer.nextLine(now: start)
        _ = pacer.nextLine(now: start)
        // A quiet minute refills two lines, not 240.
        let later = start + .seconds(60)
        #expect(pacer.nextLine(now: later) == .zero)
        #expect(pacer.nextLine(now: later) == .zero)
        #expect(pacer.nextLine(now: later) == .milliseconds(250))
    }

    /// A server's announced limits tighten the client's own, never loosen them: half the
    /// server's burst, and the slower rate.
    @Test func announcedLimitsTightenThePacing() {
        let own = ChatSendPacer(burst: 5, linesPerSecond: 2, now: start)
        var strict = own.tightened(to: IRCFloodLimits(burst: 4, linesPerSecond: 1, queuedLines: 10), now: start)
        #expect(strict.burst == 2 && strict.rate == 1)
        #expect(strict.nextLine(now: start) == .zero)
        #expect(strict.nextLine(now: start) == .zero)
        #expect(strict.nextLine(now: start) == .seconds(1))
        let loose = own.tightened(to: IRCFloodLimits(burst: 100, linesPerSecond: 50, queuedLines: 100), now: start)
        #expect(loose.burst == 5 && loose.rate == 2)
    }
}
