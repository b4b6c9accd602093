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

/// What one small write costs on the writer's own event loop: 64-byte `ByteBuffer` writes,
/// each flushed, issued by code on the connection's loop outside Swift concurrency (a promise's
/// callback, an `execute` closure), as a server that answers from its channel handlers writes.
/// The library's `write(_:timeout:promise:)` against a raw SwiftNIO channel's `writeAndFlush`
/// of the same buffer; both write to the same raw SwiftNIO sink, which counts the bytes.
///
/// The writes go in batches: one loop job issues `batch` writes, and the next batch starts once
/// the last write of this one has reached the kernel, so neither side ever holds more than a
/// batch. Returns the process's CPU nanoseconds per write (the sink's included, alike on both
/// sides).
enum WriteCost {
    static let size = 64
    static let batch = 100

    /// How the library side writes.
    enum Variant: String, CaseIterable {
        /// No timeout: the fast path the goal is about.
        case library
        /// A 5-second timeout on every write: the task's one timer, and a deadline per write.
        case libraryTimeout = "library_timeout"

        var timeout: TimeInterval { self == .library ? 0 : 5 }
    }

    static func library(count: Int, variant: Variant) async throws -> Double {
        let total = count * size
        let done = Loops.server.makePromise(of: Void.self)
        let server = try await sink(total: total, done: done)
        let session = benchSession()
        let clientSession = StreamSession(configuration: session.configuration, eventLoopGroup: Loops.client)
        let task = clientSession.streamTask(withHostName: "127.0.0.1", port: server.localAddress!.port!)
        task.resume()
        try await task.write(Data(), timeout: 10)
        let buffer = ByteBuffer(repeating: 0x77, count: size)
        let timeout = variant.timeout
        let before = processCPUSeconds()
        for start in stride(from: 0, to: count, by: batch) {
            let last = task.eventLoop.makePromise(of: Void.self)
            let writes = min(batch, count - start)
            task.eventLoop.execute {
                for _ in 1..<writes { task.write(buffer, timeout: timeout, promise: nil) }
                task.write(buffer, timeout: timeout, promise: last)
            }
            try await last.futureResult.get()
        }
        try await done.futureResult.get()
        let cpu = processCPUSeconds() - before
        task.cancel()
        try? await server.close()
        return cpu / Double(count) * 1e9
    }

    static func rawNIO(count: Int) async throws -> Double {
        let total = count * size
        let done = Loops.server.makePromise(of: Void.self)
        let server = try await sink(total: total, done: done)
        let client = try await ClientBootstrap(group: Loops.client)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()
        let buffer = ByteBuffer(repeating: 0x77, count: size)
        let before = processCPUSeconds()
        for start in stride(from: 0, to: count, by: batch) {
            let last = client.eventLoop.makePromise(of: Void.self)
            let writes = min(batch, count - start)
            client.eventLoop.execute {
                for _ in 1..<writes { client.writeAndFlush(buffer, promise: nil) }
                client.writeAndFlush(buffer, promise: last)
            }
            try await last.futureResult.get()
        }
        try await done.futureResult.get()
        let cpu = processCPUSeconds() - before
        try? await client.close()
        try? await server.close()
        return cpu / Double(count) * 1e9
    }

    /// A raw SwiftNIO listener whose accepted channel counts `total` bytes, then succeeds `done`.
    private static func sink(total: Int, done: EventLoopPromise<Void>) async throws -> any Channel {
        try await ServerBootstrap(group: Loops.server, childGroup: Loops.server)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CountingSink(total: total, done: done))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }
}
