//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Gathers the quits of a netsplit, and the joins that heal it, into one line each, as IRC
/// clients do: a split of a server with a hundred users is one line, not a hundred.
///
/// A netsplit quit is a `QUIT` whose reason is two server names (`hub.example
/// leaf.example`): the servers of the link that broke. Lines are gathered until
/// ``flush()``, which the client calls once it has handled what one read brought (a server
/// sends a split's quits together), or before it shows any other line.
public struct ChatNetsplitTracker: Sendable {
    /// The split being gathered: the two servers, and who quit.
    private var quits: (servers: String, nicks: [String])?
    /// Users gone in a split (by folded nick), with the split's servers, until they are back.
    private var gone: [String: String] = [:]
    /// Users back from a split, gathered: the servers, the nick (as written and folded), the
    /// channel.
    private var returns: [(servers: String, nick: String, folded: String, channel: String)] = []

    /// How many users gone in splits are remembered for their return: a bound on memory.
    public static let memory = 1_000
    /// How many nicks one line names; the rest are counted.
    public static let nicksPerLine = 12

    /// An empty tracker.
    public init() {}

    /// Whether `reason` is a netsplit's: two server names, each with a dot, and nothing else.
    public static func isSplitReason(_ reason: String) -> Bool {
        let words = reason.split(separator: " ", omittingEmptySubsequences: false)
        return words.count == 2
            && words.allSatisfy { word in
                word.contains(".") && !word.hasPrefix(".") && !word.hasSuffix(".")
                    && word.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }
            }
    }

    /// A `QUIT` from `nick` (folded as the server compares names). Returns `nil` when it is
    /// not a netsplit's; otherwise gathers it, and returns the lines of an earlier split that
    /// it ends (usually none).
    public mutating func quit(nick: String, folded: String, reason: String) -> [ChatDisplayLine]? {
        guard Self.isSplitReason(reason) else { return nil }
        var lines: [ChatDisplayLine] = []
        if quits?.servers != reason { lines = flush() }
        quits = (reason, (quits?.nicks ?? []) + [nick])
        if gone.count < Self.memory { gone[folded] = reason }
        return lines
    }

    /// A `JOIN` of `channel` by someone else. Returns `nil` when `nick` was not gone in a
    /// split; otherwise gathers it (the split is over) and returns the lines of the split's
    /// quits if they were still gathered.
    public mutating func join(nick: String, folded: String, channel: String) -> [ChatDisplayLine]? {
        guard let servers = gone[folded] else { return nil }
        let lines = quits == nil ? [] : flushQuits()
        returns.append((servers, nick, folded, channel))
        return lines
    }

    /// The gathered lines: one for the split's quits, one per split that is healing.
    public mutating func flush() -> [ChatDisplayLine] {
        var lines = flushQuits()
        var order: [String] = []
        var byServers: [String: (nicks: [String], channels: [String])] = [:]
        for (servers, nick, _, channel) in returns {
            if byServers[servers] == nil { order.append(servers) }
            var entry = byServers[servers] ?? ([], [])
            if !entry.nicks.contains(nick) { entry.nicks.append(nick) }
            if !entry.channels.contains(channel) { entry.channels.append(channel) }
            byServers[servers] = entry
        }
        for servers in order {
            guard let entry = byServers[servers] else { continue }
            lines.append(
                ChatDisplayLine(
                    .presence,
                    "netsplit over, \(Self.link(servers)): \(Self.names(entry.nicks)) back in \(entry.channels.joined(separator: ", "))"
                ))
        }
        for back in returns { gone[back.folded] = nil }
        returns = []
        return lines
    }

    private mutating func flushQuits() -> [ChatDisplayLine] {
        guard let (servers, nicks) = quits else { return [] }
        quits = nil
        return [ChatDisplayLine(.presence, "netsplit, \(Self.link(servers)): \(Self.names(nicks)) quit")]
    }

    /// `a.example <-> b.example` from a split's reason.
    private static func link(_ servers: String) -> String {
        servers.replacingOccurrences(of: " ", with: " <-> ")
    }

    /// The nicks, at most ``nicksPerLine`` of them, and how many more.
    private static func names(_ nicks: [String]) -> String {
        let shown = nicks.prefix(nicksPerLine).joined(separator: ", ")
        return nicks.count > nicksPerLine ? "\(shown) and \(nicks.count - nicksPerLine) more" : shown
    }
}
