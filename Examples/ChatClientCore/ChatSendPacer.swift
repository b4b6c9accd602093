//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Paces the lines the user sends to stay within a server's flood limits, across lines: a
/// burst may go at once, then lines go at a steady rate (a token bucket).
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

    /// A new connection: the server counts afresh, so the whole burst may go again.
    mutating func reset(now: ContinuousClock.Instant = .now) {
        allowance = burst
        updated = now
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
