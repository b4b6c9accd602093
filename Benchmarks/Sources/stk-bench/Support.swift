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

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// What a benchmark found, printed as `RESULT name value` lines for scripts/bench.sh to read.
func report(_ name: String, _ value: Double) {
    emit("RESULT \(name) \(value)")
}

/// A line on standard output, written at once (scripts read it while the process runs).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A progress line on standard error, so the table on standard output stays clean.
func note(_ text: String) {
    FileHandle.standardError.write(Data("stk-bench: \(text)\n".utf8))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The median of the per-round ratios of `values` to `baseline` (rounds alternate, so each
/// pair shares the machine's state of the moment).
func medianRatio(_ values: [Double], _ baseline: [Double]) -> Double {
    median(zip(values, baseline).map { $0 / $1 })
}

/// The variants named in `list` (comma-separated), in its order.
func selected<Run>(_ variants: [(String, Run)], _ list: String) -> [(String, Run)] {
    list.split(separator: ",").compactMap { name in variants.first { $0.0 == name } }
}

/// The value below which `fraction` of the sorted samples lie (nearest rank).
func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))
    return Double(sorted[rank])
}

/// This process's resident set size in bytes, from /proc/self/status.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1024
    }
    return 0
}

/// A session for the benchmarks: no proxy from the environment, no timeouts, and App Transport
/// Security's local networking allowed (every peer is on 127.0.0.1, reached by address, with the
/// test certificate's name not checked).
///
/// `outboundBufferLimit`, when given, replaces the session's default (`--outbound-limit`), to
/// measure what the limit costs or saves.
func benchSession(
    tls: StreamTLSConfiguration = StreamTLSConfiguration(),
    outboundBufferLimit: Int? = nil
) -> StreamSession {
    let configuration = StreamSession.Configuration(tls: tls, proxy: .direct)
    configuration.transportSecurity = StreamTransportSecurity(allowsLocalNetworking: true)
    if let outboundBufferLimit { configuration.outboundBufferLimit = outboundBufferLimit }
    return StreamSession(configuration: configuration)
}

/// The timeout of every library read and write (`--timeout SECONDS`; 0, the default, for none),
/// to measure what timed operations cost: a deadline each, behind the task's one timer.
let operationTimeout: TimeInterval =
    Options(CommandLine.arguments.dropFirst(2)).string("timeout")
    .flatMap(Double.init) ?? 0

/// Command-line options as `--name value` pairs.
struct Options {
    private var values: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { continue }
            values[String(argument.dropFirst(2))] = iterator.next() ?? ""
        }
    }

    func int(_ name: String, _ fallback: Int) -> Int { values[name].flatMap { Int($0) } ?? fallback }
    func string(_ name: String) -> String? { values[name] }
}

/// The event loops of every pair, library and raw NIO alike: the accepted side on one loop,
/// the client on another (when there are two), so that both baselines put the two ends of a
/// connection on the same threads.
enum Loops {
    static let all = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
    static var server: any EventLoop { all[0] }
    static var client: any EventLoop { all[1 % all.count] }
}

/// Where the code that drives a library task runs.
enum Placement: String, CaseIterable {
    /// On the task's event loop (`StreamTask.executor`), as raw SwiftNIO handlers run: each
    /// operation starts and completes on one thread.
    case eventLoop = "library"
    /// On the task's event loop, writing `ByteBuffer`s (`write(_:timeout:)` with a buffer),
    /// which go to the channel without the copy a `Data` takes, and reading them
    /// (`readBuffer`). (Round trips do not use it.)
    case eventLoopByteBuffer = "library_bytebuffer"
    /// On Swift's cooperative pool, the default: each operation crosses to the event loop and
    /// its result crosses back.
    case pool = "library_pool"
    /// On the pool, writing and reading `ByteBuffer`s, as `NIOAsyncChannel` code does. (Bulk
    /// only.)
    case poolByteBuffer = "library_pool_bytebuffer"

    func executor(for task: StreamTask) -> (any TaskExecutor)? {
        self == .pool || self == .poolByteBuffer ? nil : task.executor
    }

    /// Whether the writes are `ByteBuffer`s rather than `Data`.
    var writesByteBuffer: Bool { self == .eventLoopByteBuffer || self == .poolByteBuffer }

    /// The placements that write `Data`, as the round trips do.
    static let dataWrites: [Placement] = [.eventLoop, .pool]

    /// How a ratio's name is marked: nothing for the goal's figure, `_<name>` for the others.
    var ratioSuffix: String { self == .eventLoop ? "" : "_\(rawValue)" }
}

extension StreamTask {
    /// Reads, up to 64 KiB at a time, until `count` bytes have come: as `Data`, or with
    /// `asBuffers` as SwiftNIO buffers (`readBuffer`), which skips the copy into a `Data`.
    func receive(_ count: Int, asBuffers: Bool = false) async throws {
        var received = 0
        while received < count {
            let atEOF: Bool
            if asBuffers {
                let read = try await readBuffer(ofMinLength: 1, maxLength: 65536, timeout: operationTimeout)
                received += read.buffer.readableBytes
                atEOF = read.atEOF
            } else {
                let (data, end) = try await readData(ofMinLength: 1, maxLength: 65536, timeout: operationTimeout)
                received += data?.count ?? 0
                atEOF = end
            }
            if atEOF { throw BenchError("end of stream after \(received) of \(count) bytes") }
        }
    }
}

/// A connected pair of library tasks on loopback: `client` connected to `server`, accepted by a
/// listener of the same session.
struct LibraryPair {
    let listener: StreamListener
    let client: StreamTask
    let server: StreamTask

    /// `session` gives the configuration; each end gets a session of its own on its loop.
    static func open(session: StreamSession) async throws -> LibraryPair {
        let serverSession = StreamSession(configuration: session.configuration, eventLoopGroup: Loops.server)
        let clientSession = StreamSession(configuration: session.configuration, eventLoopGroup: Loops.client)
        let listener = StreamListener(host: "127.0.0.1", port: 0, session: serverSession)
        try await listener.start()
        let client = clientSession.streamTask(withHostName: "127.0.0.1", port: listener.port!)
        client.resume()
        var connections = listener.connections.makeAsyncIterator()
        guard let server = await connections.next() else { throw BenchError("the listener accepted nothing") }
        // An empty write completes once the client is connected (a read waits for a byte).
        try await client.write(Data(), timeout: 10)
        return LibraryPair(listener: listener, client: client, server: server)
    }

    func close() async {
        client.cancel()
        server.cancel()
        await listener.shutdown()
    }

    /// Opens a pair, runs `body` on it, and closes it before returning.
    static func with<T>(session: StreamSession, _ body: (LibraryPair) async throws -> T) async throws -> T {
        let pair = try await open(session: session)
        do {
            let result = try await body(pair)
            await pair.close()
            return result
        } catch {
            await pair.close()
            throw error
        }
    }
}

/// A raw SwiftNIO listener on 127.0.0.1 with `childHandler` in each accepted channel's pipeline,
/// and a client channel connected to it with `clientHandler`.
struct RawPair {
    let server: any Channel
    let client: any Channel

    static func open(
        child: @escaping @Sendable () -> any ChannelHandler,
        client clientHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> RawPair {
        let server = try await ServerBootstrap(group: Loops.server, childGroup: Loops.server)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(child()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: Loops.client)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(clientHandler())
                }
            }
            .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()
        return RawPair(server: server, client: client)
    }

    func close() async {
        try? await client.close()
        try? await server.close()
    }

    /// Runs `body` on the pair, and closes it before returning.
    func closing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}

/// Tells a raw client handler to begin.
struct StartEvent: Sendable {}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The library against `NIOAsyncChannel`, placed alike (from the pool, and on the event loop):
/// per-round ratios of the rates (higher is better) and of the CPU per unit (lower is better).
/// `pool` and `executor` name the library's variants to compare (those writing `ByteBuffer`s
/// where the workload has them, as `NIOAsyncChannel` does).
func reportAgainstAsyncChannel(
    _ workload: String, rates: [String: [Double]], cpu: [String: [Double]],
    pool: Placement = .pool, executor: Placement = .eventLoop
) {
    let pairs = [
        (pool.rawValue, AsyncChannelPlacement.pool.rawValue, "pool"),
        (executor.rawValue, AsyncChannelPlacement.eventLoop.rawValue, "executor"),
    ]
    for (library, baseline, placement) in pairs {
        guard let ours = rates[library], let theirs = rates[baseline] else { continue }
        reportRatios("\(workload).vs_asyncchannel_\(placement).rate_ratio", ours, theirs)
        if let ourCPU = cpu[library], let theirCPU = cpu[baseline] {
            reportRatios("\(workload).vs_asyncchannel_\(placement).cpu_ratio", ourCPU, theirCPU)
        }
    }
}

/// Reports the median of the per-round ratios of `values` to `baseline` as `key`, and the
/// lowest and highest as `key_low` and `key_high`: how far one round's ratio can stray.
func reportRatios(_ key: String, _ values: [Double], _ baseline: [Double]) {
    let ratios = zip(values, baseline).map { $0 / $1 }
    report(key, median(ratios))
    if let low = ratios.min(), let high = ratios.max() {
        report("\(key)_low", low)
        report("\(key)_high", high)
    }
}
