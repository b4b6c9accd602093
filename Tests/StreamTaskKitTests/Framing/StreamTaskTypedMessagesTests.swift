//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskKit
import Testing

/// `Codable` values as framed messages between two tasks over 127.0.0.1.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskTypedMessagesTests {
    struct Order: Codable, Equatable {
        var item: String
        var count: Int
    }

    let framer = LengthPrefixedFramer(prefix: FramingInteger(width: 4), maximumMessageLength: 4096)

    @Test func valuesSentAsJSONArriveAsValues() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let orders = [Order(item: "tea", count: 2), Order(item: "scone", count: 1)]
        for order in orders { try await client.send(order, framedBy: framer, encoder: JSONEncoder(), timeout: 10) }
        client.closeWrite()
        var received: [Order] = []
        for try await order in peer.messages(of: Order.self, framedBy: framer, decoder: JSONDecoder()) {
            received.append(order)
        }
        #expect(received == orders)
        client.cancel()
        await server.stop()
    }

    @Test func valuesSentAsPropertyListsArriveAsValues() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        try await client.send(Order(item: "jam", count: 3), framedBy: framer, encoder: encoder, timeout: 10)
        let order = try await peer.readMessage(
            Order.self, framedBy: framer, decoder: PropertyListDecoder(), timeout: 10)
        #expect(order == Order(item: "jam", count: 3))
        client.cancel()
        await server.stop()
    }

    /// A message that does not decode throws an error naming its place, and the sequence goes
    /// on with the message after it.
    @Test func aMessageThatDoesNotDecodeIsNamedAndTheSequenceGoesOn() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.send(Order(item: "tea", count: 1), framedBy: framer, encoder: JSONEncoder(), timeout: 10)
        try await client.send(ByteBuffer(string: "{not json"), framedBy: framer, timeout: 10)
        try await client.send(Order(item: "cake", count: 2), framedBy: framer, encoder: JSONEncoder(), timeout: 10)
        client.closeWrite()
        var orders = peer.messages(of: Order.self, framedBy: framer, decoder: JSONDecoder()).makeAsyncIterator()
        #expect(try await orders.next() == Order(item: "tea", count: 1))
        do {
            _ = try await orders.next()
            Issue.record("a message that is not JSON decoded")
        } catch let error as MessageDecodingError {
            #expect(error.position == 2)
            #expect(error.byteCount == 9)
        }
        #expect(try await orders.next() == Order(item: "cake", count: 2))
        #expect(try await orders.next() == nil)
        client.cancel()
        await server.stop()
    }

    @Test func theSequenceEndsAtAMessageThatDoesNotDecodeWhenAskedTo() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        try await client.send(ByteBuffer(string: "[]"), framedBy: framer, timeout: 10)
        try await client.send(Order(item: "tea", count: 1), framedBy: framer, encoder: JSONEncoder(), timeout: 10)
        var orders = peer.messages(of: Order.self, framedBy: framer, decoder: JSONDecoder(), endsOnDecodingError: true)
            .makeAsyncIterator()
        await #expect(throws: MessageDecodingError.self) { _ = try await orders.next() }
        #expect(try await orders.next() == nil, "the sequence ended")
        client.cancel()
        await server.stop()
    }
}
