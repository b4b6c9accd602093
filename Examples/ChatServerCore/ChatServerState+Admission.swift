//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import StreamTaskKit

/// Who may connect (Protocol.md, section 5): at most ``maximumClients`` clients, at most
/// ``maximumClientsPerAddress`` from one address, and at most ``maximumUnregisteredClients``
/// still registering, so that connections that never register cannot keep anyone out.
extension ChatServerState {
    /// The reason given to a connection past ``maximumClientsPerAddress``.
    public static let perAddressLimitReason = "Too many connections from your address"
    /// The reason given to the oldest unregistered connection when a new one needs its place.
    public static let registeringLimitReason = "Too many connections registering"
    /// The reason given to a new connection when every place is taken by a registered client.
    public static let fullReason = "Server is full"

    /// The most connections still registering at once: half of ``maximumClients`` (at least
    /// 1), so that the other half is always there for registered users.
    public var maximumUnregisteredClients: Int {
        max(1, maximumClients / 2)
    }

    /// A client connected from `host`.
    ///
    /// - From an address with ``maximumClientsPerAddress`` clients already, it is closed
    ///   (`Too many connections from your address`).
    /// - When ``maximumUnregisteredClients`` are registering, or the server has
    ///   ``maximumClients``, the oldest connection still registering is closed to make room
    ///   (`Too many connections registering`); with no such connection, the server is full of
    ///   registered users and the new one is closed (`Server is full`).
    public mutating func connect(_ id: ChatClientID, host: String, isSecure: Bool = false) -> [ChatServerAction] {
        let client = ChatServerClient(id: id, host: host, isSecure: isSecure)
        if let limit = maximumClientsPerAddress, let group = client.addressGroup,
            clients.values.lazy.filter({ $0.addressGroup == group }).count >= limit
        {
            return [.close(id, reason: Self.perAddressLimitReason)]
        }
        var actions: [ChatServerAction] = []
        let registering = clients.values.lazy.filter { !$0.isRegistered }
        if registering.count >= maximumUnregisteredClients || localClientCount >= maximumClients {
            guard let oldest = registering.map(\.id).min() else {
                return [.close(id, reason: Self.fullReason)]
            }
            actions += disconnect(oldest, reason: Self.registeringLimitReason)
        }
        clients[id] = client
        return actions
    }
}
