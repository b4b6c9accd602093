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

/// Round trips: a 64-byte request, the same 64 bytes back, one at a time. Returns each round
/// trip's nanoseconds, sorted.
enum RoundTrip {
    static let size = 64

    static func library(count: Int, session: StreamSession, placement: Placement) async throws -> [UInt64] {
        try await LibraryPair.with(session: session) { pair in
            try await pingPong(count: count, pair: pair, placement: placement)
        }
    }

    static func pingPong(count: Int, pair: LibraryPair, placement: Placement) async throws -> [UInt64] {
        let request = Data(repeating: 0x72, count: size)
        let echo = Task(executorPreference: placement.executor(for: pair.server)) {
            while true {
                let (data, atEOF) = try await pair.server.readData(
                    ofMinLength: size, maxLength: size, timeout: operationTimeout)
                if let data, !data.isEmpty { try await pair.server.write(data, timeout: operationTimeout) }
                if atEOF { return }
            }
        }
        defer { echo.cancel() }
        return try await withTaskExecutorPreference(placement.executor(for: pair.client)) {
            var latencies = [UInt64]()
            latencies.reserveCapacity(count)
            for _ in 0..<count {
                let start = now()
                try await pair.client.write(request, timeout: operationTimeout)
                let (data, _) = try await pair.client.readData(
                    ofMinLength: size, maxLength: size, timeout: operationTimeout)
                guard data?.count == size else { throw BenchError("short reply: \(data?.count ?? 0) bytes") }
                latencies.append(now() - start)
            }
            return latencies.sorted()
        }
    }

    static func rawNIO(count: Int, group: any EventLoopGroup) async throws -> [UInt64] {
        let done = group.next().makePromise(of: [UInt64].self)
        let pair = try await RawPair.open(
            child: { EchoHandler() },
            client: { PingClient(count: count, size: size, done: done) })
        return try await pair.closing {
            pair.client.pipeline.fireUserInboundEventTriggered(StartEvent())
            return try await done.futureResult.get().sorted()
        }
    }
}

final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

final class PingClient: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let count: Int
    private let size: Int
    private let request: ByteBuffer
    private let done: EventLoopPromise<[UInt64]>
    private var latencies: [UInt64] = []
    private var pending = 0
    private var sentAt: UInt64 = 0

    init(count: Int, size: Int, done: EventLoopPromise<[UInt64]>) {
        self.count = count
        self.size = size
        self.request = ByteBuffer(repeating: 0x72, count: size)
        self.done = done
        latencies.reserveCapacity(count)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is StartEvent else { return context.fireUserInboundEventTriggered(event) }
        send(context: context)
    }

    private func send(context: ChannelHandlerContext) {
        sentAt = now()
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += unwrapInboundIn(data).readableBytes
        while pending >= size {
            pending -= size
            latencies.append(now() - sentAt)
            if latencies.count == count {
                done.succeed(latencies)
                return
            }
            send(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if latencies.count < count { done.fail(BenchError("closed after \(latencies.count) round trips")) }
        context.fireChannelInactive()
    }
}

extension RoundTrip {
    /// `NIOAsyncChannel`: the same 64-byte ping-pong, both ends writing `ByteBuffer`s.
    static func asyncChannel(count: Int, placement: AsyncChannelPlacement) async throws -> [UInt64] {
        try await AsyncChannelPairs.with { pairs in
            let (client, server) = pairs[0]
            let echo = Task(executorPreference: placement.executor(for: server)) {
                var pending = ByteBuffer()
                for try await buffer in server.inbound {
                    var buffer = buffer
                    pending.writeBuffer(&buffer)
                    while let request = pending.readSlice(length: size) {
                        try await server.outbound.write(request)
                    }
                    pending.discardReadBytes()
                }
            }
            defer { echo.cancel() }
            return try await withTaskExecutorPreference(placement.executor(for: client)) {
                let request = ByteBuffer(repeating: 0x72, count: size)
                var latencies = [UInt64]()
                latencies.reserveCapacity(count)
                var replies = client.inbound.makeAsyncIterator()
                var pending = 0
                for _ in 0..<count {
                    let start = now()
                    try await client.outbound.write(request)
                    while pending < size {
                        guard let reply = try await replies.next() else { throw BenchError("end of stream") }
                        pending += reply.readableBytes
                    }
                    pending -= size
                    latencies.append(now() - start)
                }
                return latencies.sorted()
            }
        }
    }
}
