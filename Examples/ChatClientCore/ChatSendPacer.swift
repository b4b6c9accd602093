//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// Paces the lines the user sends to stay within a server's flood limits, across lines: a
/// burst may go at once, then lines go at a steady rate (a token bucket).
///
/// The limits are the client's own (``ChatClientOptions/pacedAfterLines``, by default half
/// Protocol.md's burst, and its rate), and no looser than what the server announces: once its
/// `005` says `FLOOD`, ``tightened(to:)`` takes half its burst and its rate where they are
/// stricter.
///
/// A server drops a client that sends more than its limits allow (Protocol.md: 10 lines at
/// once, then 2 a second, 30 waiting at most), and with it every line it had not read yet. So
/// a paste of many short lines must be paced as one long message's pieces are. A plain value:
/// the client asks it how long to wait before each line.
struct ChatSendPacer {
    /// Lines that may go at once.
    let burst: Double
    /// Lines a second after the burst.
    let rate: Double
    /// Lines that may go now without waiting.
    private var allowance: Double
    private var updated: ContinuousClock.Instant

    init(burst: Int, linesPerSecond: Double, now: ContinuousClock.Instant = .now) {
        self.burst = Double(max(1, burst))
        rate = max(0.1, linesPerSecond)
        allowance = self.burst
        updated = now
    }

    /// Pacing no looser than `limits`: at most half their burst at once (leaving the rest for
    /// what the client sends on its own, such as a `PONG`), and at most their rate.
    func tightened(to limits: IRCFloodLimits, now: ContinuousClock.Instant = .now) -> ChatSendPacer {
        var pacer = ChatSendPacer(
            burst: min(Int(burst), max(1, limits.burst / 2)), linesPerSecond: min(rate, limits.linesPerSecond),
            now: now)
        pacer.allowance = min(allowance, pacer.burst)
        pacer.updated = updated
        return pacer
    }

    /// Takes the next line's place: how long to wait before sending it (zero when it may go
    /// at once).
    mutating func nextLine(now: ContinuousClock.Instant = .now) -> Duration {
        allowance = min(burst, allowance + (now - updated).seconds * rate)
        updated = now
        allowance -= 1
        guard allowance < 0 else { return .zero }
        // The line goes once the deficit is refilled.
        return .seconds(-allowance / rate)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
