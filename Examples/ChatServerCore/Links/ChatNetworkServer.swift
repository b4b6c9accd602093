//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Another server of the network: linked to this one directly, or behind a server that is.
public struct ChatNetworkServer: Sendable, Hashable {
    /// The server's name.
    public let name: String
    /// Links between this server and it: 1 for a direct link.
    public let hopCount: Int
    /// Its description, as its `SERVER` line gave it.
    public let info: String
    /// The connection of the direct link it is reached through.
    public let link: ChatClientID
    /// The server that introduced it: this server's own name for a direct link.
    public let uplink: String
    /// The number this server gives it in the lines it sends (its own is 1).
    public let token: Int
}
