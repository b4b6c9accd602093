//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One connection to a directly linked server, from its first line to its end.
public struct ChatServerLink: Sendable, Hashable {
    /// Where a link is in its life.
    public enum Phase: Sendable, Hashable {
        /// This server connected out and sent its `PASS` and `SERVER`; the peer's are awaited.
        case connecting
        /// Both sides registered: the link carries the network.
        case established
    }

    /// The connection's number.
    public let id: ChatClientID
    /// The configured peer: the name and passwords that both sides must match.
    public let peer: ChatLinkPeer
    /// Where the link is.
    public internal(set) var phase: Phase
    /// The peer's `PASS` line: password, version and flags (`0210-IRC+ ngircd|26.1:CHLMSXZ`).
    public internal(set) var pass: [String] = []
    /// The server names behind each token the peer uses in its lines (its own first).
    var tokens: [Int: String] = [:]

    /// The peer's name.
    public var name: String { peer.name }

    /// Whether the peer is a chat-server, which takes `AWAY` with its text from a link. ngIRCd
    /// refuses `AWAY` from a server (`451`) and carries away as the user mode `+a`, without
    /// the text.
    public var carriesAwayText: Bool {
        pass.count > 2 && pass[2].hasPrefix("chat-server|")
    }

    /// Whether the peer said it speaks ngIRCd's `IRC+` extensions with `flag` (`C` for
    /// `CHANINFO`, …), in the version field of its `PASS`.
    public func peerSupports(_ flag: Character) -> Bool {
        guard pass.count > 1, pass[1].hasSuffix("-IRC+"), pass.count > 2,
            let colon = pass[2].firstIndex(of: ":")
        else { return false }
        return pass[2][pass[2].index(after: colon)...].contains(flag)
    }
}
