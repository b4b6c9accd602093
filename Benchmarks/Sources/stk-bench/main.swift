//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOPosix

// stk-bench: the library against raw SwiftNIO, alternating runs in one process so that the
// machine's noise cancels in the ratio. scripts/bench.sh runs it; see Benchmarks/BENCHMARKS.md.
//
//   stk-bench bulk --bytes N --rounds R [--only VARIANT[,VARIANT…]] [--outbound-limit BYTES]
//   stk-bench rtt --count N --rounds R [--only VARIANT[,VARIANT…]]
//   stk-bench fanout --connections C --messages N --rounds R [--only VARIANT[,VARIANT…]] [--outbound-limit BYTES]
//   stk-bench framed --count N --rounds R [--only VARIANT[,VARIANT…]]
//   stk-bench writecost --count N --rounds R [--only VARIANT[,VARIANT…]]
//   stk-bench tls-bulk --bytes N --cert PEM --key PEM
//   stk-bench idle-listener --count N
//   stk-bench idle-clients --port P --count N

let arguments = CommandLine.arguments
let command = arguments.count > 1 ? arguments[1] : ""
let options = Options(arguments.dropFirst(2))
let group = MultiThreadedEventLoopGroup.singleton  // the library's default group too

do {
    switch command {
    case "bulk":
        let total = options.int("bytes", 1 << 30)
        let rounds = options.int("rounds", 3)
        let session = benchSession(outboundBufferLimit: options.string("outbound-limit").flatMap(Int.init))
        // Each variant: a name, and a run that returns bytes per second.
        var variants: [(String, (Int) async throws -> Double)] = Placement.allCases.map { placement in
            (placement.rawValue, { try await Bulk.library(total: $0, session: session, placement: placement) })
        }
        variants += AsyncChannelPlacement.allCases.map { placement in
            (placement.rawValue, { try await Bulk.asyncChannel(total: $0, placement: placement) })
        }
        variants.append(("nio", { try await Bulk.rawNIO(total: $0, group: group) }))
        // `--only NAME[,NAME…]` runs those variants, in that order, to profile one on its own
        // or to see whether a variant's place in the round matters; the report then has no ratios.
        let only = options.string("only")
        if let only { variants = selected(variants, only) }
        // One short warm-up of each, not counted.
        for (_, run) in variants { _ = try await run(min(total, 64 << 20)) }
        var rates: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]  // CPU seconds per GiB moved
        for round in 1...rounds {
            for (name, run) in variants {
                let before = processCPUSeconds()
                rates[name, default: []].append(try await run(total))
                cpu[name, default: []].append((processCPUSeconds() - before) / (Double(total) / Double(1 << 30)))
            }
            note(
                "bulk round \(round): "
                    + rates.keys.sorted().map { "\($0) \(Int(rates[$0]!.last! / 1e6)) MB/s" }.joined(separator: ", "))
        }
        for (name, values) in rates {
            report("bulk.\(name).bytes_per_second", median(values))
            report("bulk.\(name).cpu_seconds_per_gib", median(cpu[name]!))
        }
        guard only == nil else { break }
        for placement in Placement.allCases {
            report("bulk.ratio\(placement.ratioSuffix)", medianRatio(rates[placement.rawValue]!, rates["nio"]!))
        }
        reportAgainstAsyncChannel(
            "bulk", rates: rates, cpu: cpu, pool: .poolByteBuffer, executor: .eventLoopByteBuffer)
    case "rtt":
        let count = options.int("count", 100_000)
        let rounds = options.int("rounds", 3)
        let session = benchSession()
        // Each variant: a name, and a run that returns each round trip's nanoseconds, sorted.
        var variants: [(String, (Int) async throws -> [UInt64])] = Placement.dataWrites.map { placement in
            (placement.rawValue, { try await RoundTrip.library(count: $0, session: session, placement: placement) })
        }
        variants += AsyncChannelPlacement.allCases.map { placement in
            (placement.rawValue, { try await RoundTrip.asyncChannel(count: $0, placement: placement) })
        }
        variants.append(("nio", { try await RoundTrip.rawNIO(count: $0, group: group) }))
        // `--only NAME[,NAME…]`: those variants, in that order; the report then has no ratios.
        let only = options.string("only")
        if let only { variants = selected(variants, only) }
        for (_, run) in variants { _ = try await run(min(count, 5_000)) }
        var rate: [String: [Double]] = [:]
        var p50: [String: [Double]] = [:]
        var p99: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]  // CPU microseconds per round trip
        for round in 1...rounds {
            for (name, run) in variants {
                let before = processCPUSeconds()
                let latencies = try await run(count)
                cpu[name, default: []].append((processCPUSeconds() - before) / Double(count) * 1e6)
                let total = latencies.reduce(0, +)
                rate[name, default: []].append(Double(latencies.count) / (Double(total) / 1e9))
                p50[name, default: []].append(percentile(latencies, 0.50) / 1e3)
                p99[name, default: []].append(percentile(latencies, 0.99) / 1e3)
            }
            note(
                "rtt round \(round): "
                    + variants.map { name, _ in "\(name) \(Int(rate[name]!.last!))/s p99 \(p99[name]!.last!) µs" }
                    .joined(separator: ", "))
        }
        for name in rate.keys.sorted() {
            report("rtt.\(name).per_second", median(rate[name]!))
            report("rtt.\(name).p50_us", median(p50[name]!))
            report("rtt.\(name).p99_us", median(p99[name]!))
            report("rtt.\(name).cpu_us", median(cpu[name]!))
        }
        guard only == nil else { break }
        for placement in Placement.dataWrites {
            let name = placement.rawValue
            report("rtt.rate_ratio\(placement.ratioSuffix)", medianRatio(rate[name]!, rate["nio"]!))
            report("rtt.p99_ratio\(placement.ratioSuffix)", medianRatio(p99[name]!, p99["nio"]!))
        }
        reportAgainstAsyncChannel("rtt", rates: rate, cpu: cpu)
    case "fanout":
        let connections = options.int("connections", 50)
        let messages = options.int("messages", 20_000)
        let rounds = options.int("rounds", 3)
        let session = benchSession(outboundBufferLimit: options.string("outbound-limit").flatMap(Int.init))
        var variants: [(String, (Int) async throws -> FanOut.Run)] = Placement.dataWrites.map { placement in
            (
                placement.rawValue,
                {
                    try await FanOut.library(
                        connections: connections, messages: $0, session: session, placement: placement)
                }
            )
        }
        variants += AsyncChannelPlacement.allCases.map { placement in
            (
                placement.rawValue,
                { try await FanOut.asyncChannel(connections: connections, messages: $0, placement: placement) }
            )
        }
        // `--only NAME[,NAME…]`: those variants, in that order; the report then has no ratios.
        if let only = options.string("only") { variants = selected(variants, only) }
        for (_, run) in variants { _ = try await run(min(messages, 1_000)) }
        var rate: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]  // CPU microseconds per message delivered
        for round in 1...rounds {
            for (name, run) in variants {
                let result = try await run(messages)
                rate[name, default: []].append(result.perSecond)
                cpu[name, default: []].append(result.cpuMicroseconds)
            }
            note(
                "fanout round \(round): "
                    + variants.map { name, _ in "\(name) \(Int(rate[name]!.last!))/s \(cpu[name]!.last!) µs CPU" }
                    .joined(separator: ", "))
        }
        for name in rate.keys.sorted() {
            report("fanout.\(name).per_second", median(rate[name]!))
            report("fanout.\(name).cpu_us", median(cpu[name]!))
        }
        if options.string("only") == nil { reportAgainstAsyncChannel("fanout", rates: rate, cpu: cpu) }
    case "framed":
        let count = options.int("count", 100_000)
        let rounds = options.int("rounds", 3)
        let session = benchSession()
        // Each variant: a name, and a run that returns messages per second.
        var variants: [(String, (Int) async throws -> Double)] = Placement.dataWrites.map { placement in
            (placement.rawValue, { try await Framed.library(count: $0, session: session, placement: placement) })
        }
        variants += AsyncChannelPlacement.allCases.map { placement in
            (placement.rawValue, { try await Framed.asyncChannel(count: $0, placement: placement) })
        }
        variants += Framed.LineReading.allCases.map { reading in
            (reading.rawValue, { try await Framed.lines(count: $0, session: session, reading: reading) })
        }
        // `--only NAME[,NAME…]`: those variants, in that order; the report then has no ratios.
        let only = options.string("only")
        if let only { variants = selected(variants, only) }
        for (_, run) in variants { _ = try await run(min(count, 5_000)) }
        var rate: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]  // CPU microseconds per message
        for round in 1...rounds {
            for (name, run) in variants {
                let before = processCPUSeconds()
                rate[name, default: []].append(try await run(count))
                cpu[name, default: []].append((processCPUSeconds() - before) / Double(count) * 1e6)
            }
            note(
                "framed round \(round): "
                    + variants.map { name, _ in "\(name) \(Int(rate[name]!.last!))/s \(cpu[name]!.last!) µs CPU" }
                    .joined(separator: ", "))
        }
        for name in rate.keys.sorted() {
            report("framed.\(name).per_second", median(rate[name]!))
            report("framed.\(name).cpu_us", median(cpu[name]!))
        }
        guard only == nil else { break }
        reportAgainstAsyncChannel("framed", rates: rate, cpu: cpu)
        reportRatios("framed.lines_vs_delimiter.rate_ratio", rate["library_lines"]!, rate["library_delimiter"]!)
        reportRatios("framed.lines_vs_delimiter.cpu_ratio", cpu["library_lines"]!, cpu["library_delimiter"]!)
    case "writecost":
        let count = options.int("count", 200_000)
        let rounds = options.int("rounds", 3)
        var variants: [(String, (Int) async throws -> Double)] = WriteCost.Variant.allCases.map { variant in
            (variant.rawValue, { try await WriteCost.library(count: $0, variant: variant) })
        }
        variants.append(("nio", { try await WriteCost.rawNIO(count: $0) }))
        // `--only NAME[,NAME…]`: those variants, in that order; the report then has no ratios.
        if let only = options.string("only") { variants = selected(variants, only) }
        for (_, run) in variants { _ = try await run(min(count, 10_000)) }
        var cpu: [String: [Double]] = [:]  // CPU nanoseconds per write
        for round in 1...rounds {
            for (name, run) in variants { cpu[name, default: []].append(try await run(count)) }
            note(
                "writecost round \(round): "
                    + variants.map { name, _ in "\(name) \(Int(cpu[name]!.last!)) ns CPU per write" }
                    .joined(separator: ", "))
        }
        for name in cpu.keys.sorted() { report("writecost.\(name).cpu_ns", median(cpu[name]!)) }
    case "tls-bulk":
        guard let certificate = options.string("cert"), let key = options.string("key") else {
            throw BenchError("tls-bulk needs --cert and --key")
        }
        let total = options.int("bytes", 1 << 30)
        report(
            "tls.library.bytes_per_second", try await TLSBulk.library(total: total, certificate: certificate, key: key))
    case "idle-listener":
        try await Idle.listener(count: options.int("count", 10_000))
    case "idle-clients":
        guard let port = options.string("port").flatMap(Int.init) else { throw BenchError("idle-clients needs --port") }
        try await Idle.clients(port: port, count: options.int("count", 10_000))
    default:
        throw BenchError(
            "usage: stk-bench bulk|rtt|fanout|framed|writecost|tls-bulk|idle-listener|idle-clients [--option value …]")
    }
} catch {
    note("error: \(error)")
    exit(1)
}
exit(0)
