//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// How the server presents itself: names, version, creation date, MOTD and whether it offers
/// STARTTLS.
public struct ChatServerIdentity: Sendable, Hashable {
    /// The server's name: the source of numerics (`chat.example`).
    public var serverName: String
    /// The network name (`NETWORK`, the TXT record's `name`).
    public var networkName: String
    /// The version string of `002` and `004`.
    public var version: String
    /// When the server started, as `003` shows it.
    public var createdText: String
    /// The message of the day, one entry per line; empty for none (`422`).
    public var motd: [String]
    /// Whether STARTTLS is offered (the server has a certificate).
    public var offersSTARTTLS: Bool
    /// The flood limits announced in `005` (`FLOOD`); `nil` when flood control is off.
    public var floodLimits: IRCFloodLimits? = .protocolDefaults

    /// An identity from its parts.
    public init(
        serverName: String,
        networkName: String,
        version: String = "streamtaskkit-chat-1",
        createdText: String,
        motd: [String] = ["Welcome. Be kind."],
        offersSTARTTLS: Bool
    ) {
        self.serverName = serverName
        self.networkName = networkName
        self.version = version
        self.createdText = createdText
        self.motd = motd
        self.offersSTARTTLS = offersSTARTTLS
    }
}
