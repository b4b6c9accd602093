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
import NIOPosix
import StreamTaskKit

/// Bulk transfer: `total` bytes in 64 KiB writes from a client to an accepted connection.
enum Bulk {
    static let chunkSize = 64 * 1024

    /// The library: `write(_:timeout:)` of 64 KiB, read with `readData(ofMinLength: 1, maxLength: 65536, …)`.
    /// Returns bytes per second.
    static func library(total: Int, session: StreamSession, placement: Placement) async throws -> Double {
        try await LibraryPair.with(session: session) { pair in
            try await transfer(total: total, pair: pair, placement: placement)
        }
    }

    /// Moves `total` bytes from `pair.client` to `pair.server`; returns bytes per second.
    static func transfer(total: Int, pair: LibraryPair, placement: Placement) async throws -> Double {
        let chunk = Data(repeating: 0x61, count: chunkSize)
        let start = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: placement.executor(for: pair.server)) {
                try await pair.server.receive(total, asBuffers: placement.writesByteBuffer)
            }
            group.addTask(executorPreference: placement.executor(for: pair.client)) {
                let buffer = ByteBuffer(bytes: chunk)
                var sent = 0
                while sent < total {
                    if placement.writesByteBuffer {
                        try await pair.client.write(buffer, timeout: operationTimeout)
                    } else {
                        try await pair.client.write(chunk, timeout: operationTimeout)
                    }
                    sent += chunkSize
                }
            }
            try await group.waitForAll()
        }
        let seconds = Double(now() - start) / 1e9
        return Double(total) / seconds
    }

    /// Raw SwiftNIO: a handler that writes while the channel is writable, and one that counts.
    static func rawNIO(total: Int, group: any EventLoopGroup) async throws -> Double {
        let done = group.next().makePromise(of: Void.self)
        let pair = try await RawPair.open(
            child: { CountingSink(total: total, done: done) },
            client: { BulkSource(chunkSize: chunkSize, total: total) })
        return try await pair.closing {
            let start = now()
            pair.client.pipeline.fireUserInboundEventTriggered(StartEvent())
            try await done.futureResult.get()
            let seconds = Double(now() - start) / 1e9
            return Double(total) / seconds
        }
    }
}

final class CountingSink: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let total: Int
    private let done: EventLoopPromise<Void>
    private var received = 0

    init(total: Int, done: EventLoopPromise<Void>) {
        self.total = total
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let before = received
        received += unwrapInboundIn(data).readableBytes
        if before < total && received >= total { done.succeed(()) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if received < total { done.fail(BenchError("closed after \(received) of \(total) bytes")) }
        context.fireChannelInactive()
    }
}

final class BulkSource: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let chunk: ByteBuffer
    private var remaining: Int
    private var started = false

    init(chunkSize: Int, total: Int) {
        chunk = ByteBuffer(repeating: 0x61, count: chunkSize)
        remaining = total
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is StartEvent else { return context.fireUserInboundEventTriggered(event) }
        started = true
        pump(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if started { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func pump(context: ChannelHandlerContext) {
        while remaining > 0 && context.channel.isWritable {
            context.write(wrapOutboundOut(chunk), promise: nil)
            remaining -= chunk.readableBytes
        }
        context.flush()
    }
}

extension Bulk {
    /// `NIOAsyncChannel`: 64 KiB `ByteBuffer` writes, the reader counting what its inbound
    /// stream yields. Returns bytes per second.
    static func asyncChannel(total: Int, placement: AsyncChannelPlacement) async throws -> Double {
        try await AsyncChannelPairs.with { pairs in
            let (client, server) = pairs[0]
            let start = now()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: placement.executor(for: server)) {
                    try await server.receive(total)
                }
                group.addTask(executorPreference: placement.executor(for: client)) {
                    let chunk = ByteBuffer(repeating: 0x61, count: chunkSize)
                    var sent = 0
                    while sent < total {
                        try await client.outbound.write(chunk)
                        sent += chunkSize
                    }
                }
                try await group.waitForAll()
            }
            return Double(total) / (Double(now() - start) / 1e9)
        }
    }
}
