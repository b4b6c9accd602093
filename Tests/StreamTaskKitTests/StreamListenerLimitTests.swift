//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import ServiceLifecycle
import StreamTaskTestSupport
import Testing

@testable import StreamTaskCore

/// The listener's configuration over real sockets: the per-address limit, the bounded buffer
/// of accepted connections, and the listener as a swift-service-lifecycle `Service`.
@Suite(.timeLimit(.minutes(1))) struct StreamListenerLimitTests {
    @Test func pastThePerAddressLimitConnectionsAreClosedAtAcceptAndCounted() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0, configuration: .init(maximumConnectionsPerAddress: 2))
        try await listener.start()
        let port = try #require(listener.port)
        var accepted = listener.connections.makeAsyncIterator()
        let session = StreamSession(configuration: .init(proxy: .direct))
        let first = session.loopbackTask(port: port)
        try await first.write("1")
        let firstPeer = try #require(await accepted.next())
        #expect(try await firstPeer.readText(count: 1) == "1")
        let second = session.loopbackTask(port: port)
        let secondPeer = try #require(await accepted.next())

        // The third from 127.0.0.1 is closed as it is accepted, and handed to no one.
        let third = session.loopbackTask(port: port)
        #expect(try await third.readToEnd() == "")
        #expect(listener.metrics.refusedOverAddressLimit == 1)
        // Another address is not affected: the next connection handed out is its.
        let other = try await SourceBoundSocket.connected(from: "127.0.0.2", port: port)
        let otherPeer = try #require(await accepted.next())
        #expect(otherPeer.host == "127.0.0.2")

        // The limit counts open connections: once one is closed, the address may connect again.
        first.cancel()
        #expect(try await firstPeer.readToEnd() == "")
        firstPeer.cancel()
        #expect(await eventually { listener.openConnections.count == 2 })
        let fourth = session.loopbackTask(port: port)
        try await fourth.write("4")
        let fourthPeer = try #require(await accepted.next())
        #expect(try await fourthPeer.readText(count: 1) == "4")
        #expect(listener.metrics == .init(acceptedConnections: 4, refusedOverAddressLimit: 1))

        other.close()
        for task in [second, secondPeer, otherPeer, fourth, fourthPeer] { task.cancel() }
        await listener.shutdown(gracePeriod: 0)
    }

    /// A consumer that stops taking connections stops the accepting: past the waiting limit the
    /// rest stay in the kernel's backlog, and each one taken lets one more in.
    @Test func aConsumerThatStopsTakingConnectionsStopsTheAccepting() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0, configuration: .init(maximumWaitingConnections: 2))
        try await listener.start()
        let port = try #require(listener.port)
        let session = StreamSession(configuration: .init(proxy: .direct))
        var clients: [StreamTask] = []
        for index in 0..<5 {
            let client = session.loopbackTask(port: port)
            try await client.write("\(index)")
            clients.append(client)
        }
        // Every client is connected (the kernel completed the handshakes), but only two are
        // accepted while no one takes them; a moment for more to be accepted shows none are.
        #expect(await eventually { listener.metrics.acceptedConnections == 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.metrics.acceptedConnections == 2)

        var accepted = listener.connections.makeAsyncIterator()
        var received: Set<String> = []
        let first = try #require(await accepted.next())
        received.insert(try await first.readText(count: 1))
        #expect(await eventually { listener.metrics.acceptedConnections == 3 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.metrics.acceptedConnections == 3)

        var peers = [first]
        for _ in 1..<5 {
            let peer = try #require(await accepted.next())
            received.insert(try await peer.readText(count: 1))
            peers.append(peer)
        }
        #expect(received == ["0", "1", "2", "3", "4"])
        #expect(listener.metrics.acceptedConnections == 5)
        for task in clients + peers { task.cancel() }
        await listener.shutdown(gracePeriod: 0)
    }

    /// A connection refused at accept never reaches the consumer, so it must not hold a
    /// waiting place: with room for one, a refused one and then another peer's still get in.
    @Test func aConnectionRefusedAtAcceptLeavesItsWaitingPlace() async throws {
        let configuration = StreamListener.Configuration(maximumConnectionsPerAddress: 1, maximumWaitingConnections: 1)
        let listener = StreamListener(host: "127.0.0.1", port: 0, configuration: configuration)
        try await listener.start()
        let port = try #require(listener.port)
        var accepted = listener.connections.makeAsyncIterator()
        let session = StreamSession(configuration: .init(proxy: .direct))
        let first = session.loopbackTask(port: port)
        let firstPeer = try #require(await accepted.next())
        let refused = session.loopbackTask(port: port)
        #expect(try await refused.readToEnd() == "")
        let other = try await SourceBoundSocket.connected(from: "127.0.0.2", port: port)
        let otherPeer = try #require(await accepted.next())
        #expect(otherPeer.host == "127.0.0.2")
        #expect(listener.metrics == .init(acceptedConnections: 2, refusedOverAddressLimit: 1))
        other.close()
        for task in [first, firstPeer, refused, otherPeer] { task.cancel() }
        await listener.shutdown(gracePeriod: 0)
    }

    /// With room for one waiting connection, a hundred clients that connect at once and a
    /// consumer that pauses now and then: each taken connection must let the next one in, or
    /// the loop below would stop short (a lost wake-up).
    @Test func everyTakenConnectionLetsTheNextOneIn() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0, configuration: .init(maximumWaitingConnections: 1))
        try await listener.start()
        let port = try #require(listener.port)
        let session = StreamSession(configuration: .init(proxy: .direct))
        let count = 100
        let clients = (0..<count).map { _ in session.loopbackTask(port: port) }
        var random = SplitMix64(seed: 19)
        var accepted = listener.connections.makeAsyncIterator()
        var peers: [StreamTask] = []
        for _ in 0..<count {
            peers.append(try #require(await accepted.next()))
            if random.next() % 4 == 0 { try await Task.sleep(for: .milliseconds(Int(random.next() % 5))) }
        }
        #expect(listener.metrics.acceptedConnections == count)
        for task in clients + peers { task.cancel() }
        await listener.shutdown(gracePeriod: 0)
    }

    /// In a `ServiceGroup`, the listener binds by itself; on graceful shutdown it stops
    /// accepting, ends `connections`, and lets open connections finish before the group ends.
    @Test func inAServiceGroupTheListenerStartsAndShutsDownGracefully() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0, configuration: .init())
        let group = ServiceGroup(services: [listener])
        let running = Task { try await group.run() }
        #expect(await eventually { listener.port != nil })
        let port = try #require(listener.port)
        let client = StreamSession(configuration: .init(proxy: .direct)).loopbackTask(port: port)
        try await client.write("a")
        var accepted = listener.connections.makeAsyncIterator()
        let peer = try #require(await accepted.next())

        await group.triggerGracefulShutdown()
        #expect(await accepted.next() == nil, "the connections sequence ends")
        #expect(try await peer.readText(count: 1) == "a")
        try await peer.write("b")
        #expect(try await client.readText(count: 1) == "b")
        client.closeWrite()
        peer.closeWrite()
        #expect(try await peer.readToEnd() == "")
        try await running.value
        #expect(listener.openConnections.isEmpty)
        #expect(listener.localAddress == nil)
    }

    @Test func peerAddressGroupsAreIPv4AddressesAndIPv6Slash64s() {
        #expect(PeerAddressGroup(ipAddress: "192.0.2.1") == PeerAddressGroup(ipAddress: "::ffff:192.0.2.1"))
        #expect(PeerAddressGroup(ipAddress: "192.0.2.1") != PeerAddressGroup(ipAddress: "192.0.2.2"))
        #expect(
            PeerAddressGroup(ipAddress: "2001:db8:1:2::1")
                == PeerAddressGroup(ipAddress: "2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(PeerAddressGroup(ipAddress: "2001:db8:1:2::1") != PeerAddressGroup(ipAddress: "2001:db8:1:3::1"))
        #expect(PeerAddressGroup(ipAddress: "2001:db8:1:2::1")?.description == "2001:db8:1:2::/64")
        #expect(PeerAddressGroup(ipAddress: "127.0.0.2")?.description == "127.0.0.2")
        #expect(PeerAddressGroup(ipAddress: "chat.example") == nil)
    }

    /// The kernel's queue of connections not yet accepted on 127.0.0.1:`port` (for a listening
    /// socket, the receive-queue column of /proc/net/tcp).
    static func acceptQueueLength(port: Int) -> Int? {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return nil }
        let local = String(format: "0100007F:%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1] == local, fields[3] == "0A" else { continue }
            return fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) }
        }
        return nil
    }
}
