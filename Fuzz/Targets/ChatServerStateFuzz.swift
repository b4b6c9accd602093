//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The chat server's protocol state under hostile clients: any sequence of connections from a
// few addresses (IPv4, and IPv6 in and out of one /64), lines of any bytes from any of them,
// and disconnections. It never traps, and after every event:
// - the limits hold: at most `maximumClients` clients, at most half of them registering, at
//   most `maximumClientsPerAddress` from one address group;
// - a new connection is refused only for its address's limit (that many open from its group)
//   or with a server full of registered clients; a connection closed to make room was the
//   oldest one still registering;
// - the registry is consistent: every nickname points at a client that has it, every channel
//   member is a client in that channel, every client's channels list it, no channel is empty.
// One server may link in (`PASS pw`, `SERVER hub.fuzz`), and then its lines are a linked
// server's: users and servers behind it, bursts, relays, splits, over-long lines (which end the
// link). The network stays consistent too: every remote user and every server is behind an
// established link, every remote user's server is known, and the limits count only this
// server's own clients.

private let hosts = [
    "127.0.0.1", "127.0.0.2", "192.0.2.7", "2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:3::1", "::1", "0::1",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChatServerState(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maximumClients = 1 + Int(input.byte() % 12)
    let perAddressByte = input.byte() % 6
    let perAddress = perAddressByte == 0 ? nil : Int(perAddressByte)
    let identity = ChatServerIdentity(
        serverName: "chat.fuzz", networkName: "Fuzz", createdText: "now", offersSTARTTLS: input.byte() & 1 == 1)
    var state = ChatServerState(
        identity: identity, maximumClients: maximumClients, maximumClientsPerAddress: perAddress)
    state.linkPeers = [ChatLinkPeer(name: "hub.fuzz", sentPassword: "pw", expectedPassword: "pw")]
    var nextID = 1
    var lines = input.rest.split(separator: 0x0A, omittingEmptySubsequences: false)[...]
    var now = 1_000
    while let line = lines.popFirst() {
        guard let op = line.first else { continue }
        let body = Array(line.dropFirst())
        // Connections: clients of this server (remote users have negative ids) and links.
        let known = (state.clients.keys.filter { $0 > 0 } + state.links.keys).sorted()
        switch op % 8 {
        case 0, 1:
            connect(&state, id: nextID, host: hosts[Int(op / 8) % hosts.count])
            nextID += 1
        case 2 where !known.isEmpty:
            _ = state.disconnect(known[Int(op / 8) % known.count], reason: "gone")
        case 7 where !known.isEmpty:
            // A line over the limit: a client is told, a link is split away whole.
            let id = known[Int(op / 8) % known.count]
            let wasLink = state.links[id] != nil
            _ = state.receiveOverlongLine(from: id)
            if wasLink { require(state.links[id] == nil, "link \(id) stayed after an over-long line") }
        default:
            guard !known.isEmpty, let message = try? IRCMessage(parsing: body) else { break }
            let id = known[Int(op / 8) % known.count]
            for action in state.receive(message, from: id, now: now) {
                if case .close(let closed, _) = action {
                    require(
                        state.clients[closed] == nil && state.links[closed] == nil,
                        "closed connection \(closed) is still there")
                }
            }
            if op & 0x80 != 0 { state.tlsEstablished(id) }
            now += 1
        }
        checkConsistency(state)
    }
    return 0
}

private func connect(_ state: inout ChatServerState, id: ChatClientID, host: String) {
    let before = state
    let group = PeerAddressGroup(ipAddress: host)
    let sameGroup = before.clients.values.filter { $0.addressGroup == group }.count
    let registering = before.clients.values.filter { !$0.isRegistered }.map(\.id)
    let actions = state.connect(id, host: host)
    switch actions.first {
    case .close(let closed, let reason) where closed == id:
        require(actions.count == 1, "a refusal did more: \(actions)")
        if reason == ChatServerState.perAddressLimitReason {
            require(
                sameGroup >= (before.maximumClientsPerAddress ?? .max),
                "refused for its address with \(sameGroup) open from it")
        } else {
            require(reason == ChatServerState.fullReason, "refused as \(reason)")
            require(
                registering.isEmpty && before.localClientCount >= before.maximumClients,
                "refused as full with \(before.localClientCount) clients, \(registering.count) registering")
        }
        require(state.clients.count == before.clients.count, "a refusal changed the clients")
    case .close(let closed, let reason):
        require(reason == ChatServerState.registeringLimitReason, "closed \(closed) as \(reason)")
        require(closed == registering.min(), "closed \(closed), not the oldest registering \(registering.min() ?? -1)")
        require(state.clients[id] != nil, "the new connection was not let in")
    case nil:
        require(state.clients[id] != nil, "the new connection was not let in")
    default:
        require(false, "connecting did \(actions)")
    }
}

private func checkConsistency(_ state: ChatServerState) {
    let clients = state.clients
    require(
        state.localClientCount <= state.maximumClients,
        "\(state.localClientCount) clients, limit \(state.maximumClients)")
    let registering = clients.values.filter { !$0.isRegistered }.count
    require(
        registering <= state.maximumUnregisteredClients,
        "\(registering) registering, limit \(state.maximumUnregisteredClients)")
    if let limit = state.maximumClientsPerAddress {
        var counts: [PeerAddressGroup: Int] = [:]
        for client in clients.values { if let group = client.addressGroup { counts[group, default: 0] += 1 } }
        require(counts.values.allSatisfy { $0 <= limit }, "per-address counts \(counts.values.sorted()) over \(limit)")
    }
    for (folded, id) in state.nicknames {
        let owner = clients[id]
        require(
            owner?.nickname.map { state.caseMapping.folded($0) } == folded,
            "nickname \(folded) points at client \(id) named \(owner?.nickname ?? "nothing")")
    }
    for (key, channel) in state.channels {
        require(!channel.members.isEmpty, "channel \(key) is empty")
        require(Set(channel.members).count == channel.members.count, "channel \(key) lists a member twice")
        for member in channel.members {
            require(clients[member]?.channels.contains(key) == true, "member \(member) of \(key) does not know it")
        }
    }
    for client in clients.values {
        for key in client.channels {
            require(
                state.channels[key]?.members.contains(client.id) == true, "client \(client.id) thinks it is in \(key)")
        }
        if !client.isRegistered { require(client.channels.isEmpty, "unregistered client \(client.id) is in channels") }
        if let link = client.link {
            require(state.links[link]?.phase == .established, "remote user \(client.id) is behind no link")
            require(
                client.server.map { state.servers[$0.lowercased()] != nil } == true,
                "remote user \(client.id) is on an unknown server \(client.server ?? "?")")
            require(client.id < 0, "remote user \(client.id) has a connection's id")
        }
    }
    for server in state.servers.values {
        require(state.links[server.link]?.phase == .established, "server \(server.name) is behind no link")
    }
}
