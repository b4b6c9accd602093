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
//   stk-bench bulk --bytes N --rounds R
//   stk-bench rtt --count N --rounds R
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
        let session = benchSession()
        // One short warm-up of each, not counted.
        for placement in Placement.allCases {
            _ = try await Bulk.library(total: min(total, 64 << 20), session: session, placement: placement)
        }
        _ = try await Bulk.rawNIO(total: min(total, 64 << 20), group: group)
        var rates: [String: [Double]] = [:]
        for round in 1...rounds {
            for placement in Placement.allCases {
                rates[placement.rawValue, default: []].append(
                    try await Bulk.library(total: total, session: session, placement: placement))
            }
            rates["nio", default: []].append(try await Bulk.rawNIO(total: total, group: group))
            note(
                "bulk round \(round): "
                    + rates.keys.sorted().map { "\($0) \(Int(rates[$0]!.last! / 1e6)) MB/s" }.joined(separator: ", "))
        }
        for (name, values) in rates {
            report("bulk.\(name).bytes_per_second", median(values))
        }
        for placement in Placement.allCases {
            report("bulk.ratio\(placement.ratioSuffix)", medianRatio(rates[placement.rawValue]!, rates["nio"]!))
        }
    case "rtt":
        let count = options.int("count", 100_000)
        let rounds = options.int("rounds", 3)
        let session = benchSession()
        for placement in Placement.dataWrites {
            _ = try await RoundTrip.library(count: min(count, 5_000), session: session, placement: placement)
        }
        _ = try await RoundTrip.rawNIO(count: min(count, 5_000), group: group)
        var rate: [String: [Double]] = [:]
        var p50: [String: [Double]] = [:]
        var p99: [String: [Double]] = [:]
        for round in 1...rounds {
            var runs: [(String, [UInt64])] = []
            for placement in Placement.dataWrites {
                runs.append(
                    (
                        placement.rawValue,
                        try await RoundTrip.library(count: count, session: session, placement: placement)
                    ))
            }
            runs.append(("nio", try await RoundTrip.rawNIO(count: count, group: group)))
            for (name, latencies) in runs {
                let total = latencies.reduce(0, +)
                rate[name, default: []].append(Double(latencies.count) / (Double(total) / 1e9))
                p50[name, default: []].append(percentile(latencies, 0.50) / 1e3)
                p99[name, default: []].append(percentile(latencies, 0.99) / 1e3)
            }
            note(
                "rtt round \(round): "
                    + runs.map { name, _ in "\(name) \(Int(rate[name]!.last!))/s p99 \(p99[name]!.last!) µs" }.joined(
                        separator: ", "))
        }
        for name in rate.keys.sorted() {
            report("rtt.\(name).per_second", median(rate[name]!))
            report("rtt.\(name).p50_us", median(p50[name]!))
            report("rtt.\(name).p99_us", median(p99[name]!))
        }
        for placement in Placement.dataWrites {
            let name = placement.rawValue
            report("rtt.rate_ratio\(placement.ratioSuffix)", medianRatio(rate[name]!, rate["nio"]!))
            report("rtt.p99_ratio\(placement.ratioSuffix)", medianRatio(p99[name]!, p99["nio"]!))
        }
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
        throw BenchError("usage: stk-bench bulk|rtt|tls-bulk|idle-listener|idle-clients [--option value …]")
    }
} catch {
    note("error: \(error)")
    exit(1)
}
exit(0)
