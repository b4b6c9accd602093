//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A server's flood limits (Protocol.md, section 5): a burst of lines at once, then a steady
/// rate, and how many lines may wait before the client is disconnected. The server announces
/// them in `005` as `FLOOD=<burst>,<lines a second>,<waiting>`; a client paces what it sends
/// under them.
public struct IRCFloodLimits: Sendable, Hashable {
    /// Lines a client may send at once.
    public var burst: Int
    /// Lines a second after the burst.
    public var linesPerSecond: Double
    /// Lines that may wait before the client is disconnected (`Excess Flood`).
    public var queuedLines: Int

    /// Limits from their parts.
    public init(burst: Int, linesPerSecond: Double, queuedLines: Int) {
        self.burst = burst
        self.linesPerSecond = linesPerSecond
        self.queuedLines = queuedLines
    }

    /// The limits Protocol.md states, which a client assumes when a server announces none.
    public static let protocolDefaults = IRCFloodLimits(
        burst: IRCLimits.floodBurst, linesPerSecond: Double(IRCLimits.floodLinesPerSecond),
        queuedLines: IRCLimits.floodQueuedLines)

    /// The `FLOOD` token's value: `10,2,30`.
    public var isupportValue: String {
        let rate =
            linesPerSecond == linesPerSecond.rounded() && abs(linesPerSecond) < 1e9
            ? String(Int(linesPerSecond)) : String(linesPerSecond)
        return "\(burst),\(rate),\(queuedLines)"
    }

    /// Limits from a `FLOOD` token's value; `nil` unless it is three positive numbers.
    public init?(isupportValue: String) {
        let parts = isupportValue.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, let burst = Int(parts[0]), let rate = Double(parts[1]), let queued = Int(parts[2]),
            burst > 0, rate > 0, rate.isFinite, queued >= 0
        else { return nil }
        self.init(burst: burst, linesPerSecond: rate, queuedLines: queued)
    }
}
