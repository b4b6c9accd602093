// swift-tools-version:6.1
//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
// The benchmarks live in a package of their own so that the library's dependency graph and the
// root package's tests stay as they are: `scripts/bench.sh` is the one command that runs them.
import PackageDescription

let package = Package(
    name: "StreamTaskKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the identity does not depend on the folder the repository is in.
        .package(name: "swift-stream-task-kit", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The framed-message baseline: NIOAsyncChannel with LengthFieldBasedFrameDecoder.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The harness for the allocation benchmark: it counts mallocs through its interposer.
        .package(
            url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1",
            traits: ["MallocInterposer"]),
    ],
    targets: [
        // The ratio benchmarks: the library and raw SwiftNIO doing the same work, alternated in
        // one process, so that the machine's noise cancels in the ratio.
        .executableTarget(
            name: "stk-bench",
            dependencies: [
                .product(name: "StreamTaskKit", package: "swift-stream-task-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            path: "Sources/stk-bench"
        ),
        // A chat relay on raw SwiftNIO with no protocol logic: the floor for chat-server.
        .executableTarget(
            name: "nio-chat-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/nio-chat-floor"
        ),
        // Allocations per read+write cycle, with thresholds kept in Thresholds/.
        .executableTarget(
            name: "Allocations",
            dependencies: [
                .product(name: "StreamTaskKit", package: "swift-stream-task-kit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/Allocations",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
