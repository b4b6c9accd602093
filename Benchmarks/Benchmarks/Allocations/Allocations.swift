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
import StreamTaskKit

// Allocations per read+write cycle in steady state: a client task writes 64 bytes and the
// accepted task reads them with readData(ofMinLength: 64, maxLength: 64, …). The malloc
// interposer counts every allocation in the process, on the event loop's threads too. The
// threshold is kept in Benchmarks/Thresholds/: `swift package benchmark thresholds check`
// fails when the count rises over it (scripts/bench.sh runs that).

/// The connected pair the cycles run on, made in setup. Only the benchmark's closure and its
/// setup and teardown touch it, one after another.
nonisolated(unsafe) var pair: (client: StreamTask, server: StreamTask, listener: StreamListener)?

let payload = Data(repeating: 0x61, count: 64)

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "ReadWriteCycle",
        configuration: .init(
            metrics: [.mallocCountTotal, .wallClock],
            warmupIterations: 2,
            scalingFactor: .kilo,
            maxDuration: .seconds(10),
            maxIterations: 20,
            // The count per cycle is 22 to 24 from run to run (scheduling decides whether a
            // continuation resumes at once or is queued); a rise of more than 10% over the
            // stored p90 (24) fails, so 27 or more.
            thresholds: [.mallocCountTotal: .init(relative: [.p90: 10.0])]
        )
    ) { benchmark in
        guard let (client, server, _) = pair else { fatalError("no connection") }
        for _ in benchmark.scaledIterations {
            try await client.write(payload, timeout: 0)
            let (data, _) = try await server.readData(ofMinLength: 64, maxLength: 64, timeout: 0)
            blackHole(data)
        }
    } setup: {
        let session = StreamSession(configuration: StreamSession.Configuration(proxy: .direct))
        let listener = StreamListener(host: "127.0.0.1", port: 0, session: session)
        try await listener.start()
        let client = session.streamTask(withHostName: "127.0.0.1", port: listener.port!)
        client.resume()
        var connections = listener.connections.makeAsyncIterator()
        guard let server = await connections.next() else { fatalError("nothing accepted") }
        // An empty write completes once the client is connected.
        try await client.write(Data(), timeout: 10)
        pair = (client, server, listener)
    } teardown: {
        guard let (client, server, listener) = pair else { return }
        client.cancel()
        server.cancel()
        await listener.shutdown()
        pair = nil
    }
}
