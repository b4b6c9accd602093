//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOPosix

/// The baseline a user would pick instead of the library: SwiftNIO's own `NIOAsyncChannel`,
/// driven from Swift concurrency like the library's tasks, on the same event loops.
typealias ByteChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

/// One end of a connection wrapped in `NIOAsyncChannel`, inside its `executeThenClose`.
struct AsyncChannelEnd: Sendable {
    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let eventLoop: any EventLoop
}

extension AsyncChannelEnd {
    /// Reads what the inbound stream yields until `count` bytes have come.
    func receive(_ count: Int) async throws {
        var received = 0
        for try await buffer in inbound {
            received += buffer.readableBytes
            if received >= count { return }
        }
        throw BenchError("end of stream after \(received) of \(count) bytes")
    }
}

/// Where the code that drives an `NIOAsyncChannel` runs: Swift's cooperative pool, or the
/// channel's event loop through ``LoopExecutor`` (what the library's `StreamTask.executor` is).
enum AsyncChannelPlacement: String, CaseIterable {
    case pool = "asyncchannel_pool"
    case eventLoop = "asyncchannel"

    func executor(for end: AsyncChannelEnd) -> (any TaskExecutor)? {
        self == .pool ? nil : LoopExecutor(end.eventLoop)
    }
}

/// The ten-line adapter that runs Swift jobs on an event loop, as the library's executor does.
final class LoopExecutor: TaskExecutor {
    let eventLoop: any EventLoop
    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// `count` connected pairs of `NIOAsyncChannel`s on loopback: clients on ``Loops/client``,
/// accepted ends on ``Loops/server``, as the library's pairs and the raw ones.
enum AsyncChannelPairs {
    /// `prepareClient` and `prepareServer` add handlers to each end's pipeline (a framer, say)
    /// before it is wrapped.
    static func with<T: Sendable>(
        count: Int = 1,
        prepareClient: @escaping @Sendable (any Channel) throws -> Void = { _ in },
        prepareServer: @escaping @Sendable (any Channel) throws -> Void = { _ in },
        _ body: @Sendable ([(client: AsyncChannelEnd, server: AsyncChannelEnd)]) async throws -> T
    ) async throws -> T {
        let listener = try await ServerBootstrap(group: Loops.server, childGroup: Loops.server)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try prepareServer(channel)
                    return try ByteChannel(wrappingChannelSynchronously: channel)
                }
            }
        let port = listener.channel.localAddress!.port!
        return try await listener.executeThenClose { accepted in
            var clients: [ByteChannel] = []
            var servers: [ByteChannel] = []
            var iterator = accepted.makeAsyncIterator()
            for _ in 0..<count {
                clients.append(
                    try await ClientBootstrap(group: Loops.client)
                        .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                        .connect(host: "127.0.0.1", port: port) { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try prepareClient(channel)
                                return try ByteChannel(wrappingChannelSynchronously: channel)
                            }
                        })
                guard let server = try await iterator.next() else { throw BenchError("the listener accepted nothing") }
                servers.append(server)
            }
            return try await opening(Array(zip(clients, servers))[...], [], body)
        }
    }

    /// Enters each pair's `executeThenClose` in turn, then runs `body` with every end open.
    private static func opening<T: Sendable>(
        _ pending: ArraySlice<(ByteChannel, ByteChannel)>,
        _ open: [(client: AsyncChannelEnd, server: AsyncChannelEnd)],
        _ body: @Sendable ([(client: AsyncChannelEnd, server: AsyncChannelEnd)]) async throws -> T
    ) async throws -> T {
        guard let (client, server) = pending.first else { return try await body(open) }
        return try await client.executeThenClose { clientIn, clientOut in
            try await server.executeThenClose { serverIn, serverOut in
                let pair = (
                    client: AsyncChannelEnd(
                        inbound: clientIn, outbound: clientOut, eventLoop: client.channel.eventLoop),
                    server: AsyncChannelEnd(inbound: serverIn, outbound: serverOut, eventLoop: server.channel.eventLoop)
                )
                return try await opening(pending.dropFirst(), open + [pair], body)
            }
        }
    }
}
