//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Benchmark
import Foundation
import NIOCore
import NIOPosix
import StreamTaskKit

// Allocations per read+write cycle in steady state, counted by the malloc interposer in the
// whole process, on the event loops' threads too:
// - ReadWriteCycle: a client task writes 64 bytes of `Data` and the accepted task reads them
//   with readData(ofMinLength: 64, maxLength: 64, …). Its threshold is kept in
//   Benchmarks/Thresholds/: `swift package benchmark thresholds check` fails when the count
//   rises over it (scripts/bench.sh runs that).
// - ReadWriteCycle.ByteBuffer: the same with a 64-byte `ByteBuffer` written and read with
//   readBuffer, the form with no copy of the library's own;
// - ReadWriteCycle.NIOAsyncChannel: the same cycle on SwiftNIO's own NIOAsyncChannel, the
//   baseline the ByteBuffer cycle is held to (issue 45: at most its count plus 2).
// All three drive the connection from the cooperative pool, as the benchmark's closure runs
// there.

/// The connected pair the cycles run on, made in setup. Only the benchmark's closure and its
/// setup and teardown touch it, one after another.
nonisolated(unsafe) var pair: (client: StreamTask, server: StreamTask, listener: StreamListener)?

/// The ends of the baseline's NIOAsyncChannel pair: the client's writer and an iterator over
/// the server's inbound stream (a stream takes one iterator, so it is made once), open inside
/// their `executeThenClose` in `asyncHolder`'s task until its `stop` stream ends. (The
/// listener closed once it had accepted the server's end.)
nonisolated(unsafe) var asyncEnds:
    (
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    )?
nonisolated(unsafe) var asyncHolder: (task: Task<Void, any Error>, stop: AsyncStream<Void>.Continuation)?

let payload = Data(repeating: 0x61, count: 64)
let payloadBuffer = ByteBuffer(repeating: 0x61, count: 64)

/// The settings every cycle runs with: the count per iteration is what is compared.
func cycleConfiguration(thresholds: [BenchmarkMetric: BenchmarkThresholds] = [:]) -> Benchmark.Configuration {
    .init(
        metrics: [.mallocCountTotal, .wallClock],
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(10),
        maxIterations: 20,
        thresholds: thresholds
    )
}

/// A client task connected to a task a listener accepted, on loopback.
func connectedTasks() async throws -> (client: StreamTask, server: StreamTask, listener: StreamListener) {
    let session = StreamSession(configuration: StreamSession.Configuration(proxy: .direct))
    let listener = StreamListener(host: "127.0.0.1", port: 0, session: session)
    try await listener.start()
    let client = session.streamTask(withHostName: "127.0.0.1", port: listener.port!)
    client.resume()
    var connections = listener.connections.makeAsyncIterator()
    guard let server = await connections.next() else { fatalError("nothing accepted") }
    // An empty write completes once the client is connected.
    try await client.write(Data(), timeout: 10)
    return (client, server, listener)
}

func disconnect(_ tasks: (client: StreamTask, server: StreamTask, listener: StreamListener)?) async {
    guard let (client, server, listener) = tasks else { return }
    client.cancel()
    server.cancel()
    await listener.shutdown()
}

/// A cycle on a connected pair of tasks, made in setup: `cycle` runs once per iteration with
/// the client and the accepted task. (Calling it costs no allocation.)
func libraryCycle(
    _ name: String,
    configuration: Benchmark.Configuration,
    _ cycle: @escaping @Sendable (_ client: StreamTask, _ server: StreamTask) async throws -> Void
) {
    Benchmark(name, configuration: configuration) { benchmark in
        guard let (client, server, _) = pair else { fatalError("no connection") }
        for _ in benchmark.scaledIterations { try await cycle(client, server) }
    } setup: {
        pair = try await connectedTasks()
    } teardown: {
        await disconnect(pair)
        pair = nil
    }
}

let benchmarks: @Sendable () -> Void = {
    libraryCycle(
        "ReadWriteCycle",
        // The count per cycle varies by a few from run to run (scheduling decides whether a
        // continuation resumes at once or is queued); a rise of more than 10% over the stored
        // p90 fails.
        configuration: cycleConfiguration(thresholds: [.mallocCountTotal: .init(relative: [.p90: 10.0])])
    ) { client, server in
        try await client.write(payload, timeout: 0)
        let (data, _) = try await server.readData(ofMinLength: 64, maxLength: 64, timeout: 0)
        blackHole(data)
    }

    libraryCycle("ReadWriteCycle.ByteBuffer", configuration: cycleConfiguration()) { client, server in
        try await client.write(payloadBuffer, timeout: 0)
        let (bytes, _) = try await server.readBuffer(ofMinLength: 64, maxLength: 64, timeout: 0)
        blackHole(bytes)
    }

    Benchmark("ReadWriteCycle.NIOAsyncChannel", configuration: cycleConfiguration()) { benchmark in
        guard var (outbound, inbound) = asyncEnds else { fatalError("no connection") }
        for _ in benchmark.scaledIterations {
            try await outbound.write(payloadBuffer)
            var received = 0
            while received < 64 {
                guard let bytes = try await inbound.next() else { fatalError("the connection ended") }
                received += bytes.readableBytes
            }
        }
        asyncEnds = (outbound, inbound)
    } setup: {
        try await openAsyncChannels()
    } teardown: {
        guard let (task, stop) = asyncHolder else { return }
        asyncEnds = nil
        asyncHolder = nil
        stop.finish()
        try? await task.value
    }
}

/// Connects two NIOAsyncChannels on loopback, on the singleton group's loops as the tasks are,
/// and holds them open (see `asyncHolder`).
func openAsyncChannels() async throws {
    typealias ByteChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let group = MultiThreadedEventLoopGroup.singleton
    let listener = try await ServerBootstrap(group: group)
        .bind(host: "127.0.0.1", port: 0) { channel in
            channel.eventLoop.makeCompletedFuture { try ByteChannel(wrappingChannelSynchronously: channel) }
        }
    let client = try await ClientBootstrap(group: group)
        .connect(host: "127.0.0.1", port: listener.channel.localAddress!.port!) { channel in
            channel.eventLoop.makeCompletedFuture { try ByteChannel(wrappingChannelSynchronously: channel) }
        }
    let server = try await listener.executeThenClose { accepted in
        var connections = accepted.makeAsyncIterator()
        guard let server = try await connections.next() else { fatalError("nothing accepted") }
        return server
    }
    let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
    let (stop, stopContinuation) = AsyncStream.makeStream(of: Void.self)
    let task = Task {
        try await client.executeThenClose { _, outbound in
            try await server.executeThenClose { inbound, _ in
                asyncEnds = (outbound, inbound.makeAsyncIterator())
                readyContinuation.finish()
                for await _ in stop {}
            }
        }
    }
    for await _ in ready {}
    asyncHolder = (task, stopContinuation)
}
