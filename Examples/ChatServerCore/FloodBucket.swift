//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A token bucket for the flood limit: a burst of lines at once, then a steady rate.
struct FloodBucket {
    let burst: Double
    let rate: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    init(burst: Int, linesPerSecond: Double, now: ContinuousClock.Instant) {
        self.burst = Double(burst)
        self.rate = linesPerSecond
        self.tokens = Double(burst)
        self.updated = now
    }

    /// Takes one line's token if there is one.
    mutating func take(now: ContinuousClock.Instant) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// When the next token will be there.
    mutating func nextToken(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        refill(now: now)
        if tokens >= 1 { return now }
        return now + .seconds((1 - tokens) / rate)
    }

    private mutating func refill(now: ContinuousClock.Instant) {
        let elapsed = now - updated
        tokens = min(burst, tokens + elapsed.inSeconds * rate)
        updated = now
    }
}
