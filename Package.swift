// swift-tools-version:6.0
//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
import PackageDescription

let package = Package(
    name: "swift-stream-task-kit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        // The one import: the core and HTTP data tasks. StreamTaskCore alone has no HTTP.
        .library(name: "StreamTaskKit", targets: ["StreamTaskKit"]),
        .library(name: "StreamTaskCore", targets: ["StreamTaskCore"]),
        // DNS-SD is a product of its own: StreamTaskKit builds without dns_sd.h installed.
        .library(name: "StreamTaskDNSSD", targets: ["StreamTaskDNSSD"]),
        .executable(name: "echo-server", targets: ["echo-server"]),
        .executable(name: "echo-client", targets: ["echo-client"]),
        .executable(name: "chat-server", targets: ["chat-server"]),
        .executable(name: "chat-client", targets: ["chat-client"]),
        .executable(name: "json-kv", targets: ["json-kv"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // Which route the system would take to a peer, and whether a connection's interface and
        // address are still there: rtnetlink on Linux, Network.framework on Darwin. Knows
        // nothing of tasks; the core turns its events into task events.
        .target(
            name: "StreamTaskRoutes",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Stream tasks, sessions, listeners, TLS, proxies, route events: no HTTP, and no
        // FoundationNetworking.
        .target(
            name: "StreamTaskCore",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // HTTP/1.1 data tasks whose response can become a stream task; plugs into a task
        // through the core's StreamTaskAttachment.
        .target(
            name: "StreamTaskHTTP",
            dependencies: [
                "StreamTaskCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Route watching plugged into the core's tasks: the better-route and viability events.
        // The core does not depend on it; StreamTaskKit links it in, and the C target's
        // load-time constructor registers it with the core.
        .target(
            name: "StreamTaskRouteWatch",
            dependencies: [
                "StreamTaskCore",
                "StreamTaskRoutes",
                "CStreamTaskRouteWatch",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(name: "CStreamTaskRouteWatch"),
        // Messages, not bytes: framers (lines, length prefixes, type-length-value, delimiters)
        // and the task's reads and writes of framed messages, on the core's frame reads.
        .target(
            name: "StreamTaskFraming",
            dependencies: [
                "StreamTaskCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // The umbrella: re-exports the core, framing and HTTP, so that one import is enough, and
        // links route watching in.
        .target(
            name: "StreamTaskKit",
            dependencies: ["StreamTaskCore", "StreamTaskFraming", "StreamTaskHTTP", "StreamTaskRouteWatch"]
        ),
        // dns_sd.h: Avahi's compatibility library on Linux, the system's on Darwin. No pkgConfig:
        // the .pc file's `-D_REENTRANT` is a flag SwiftPM refuses, with a warning on every build,
        // and Debian's package puts dns_sd.h in /usr/include anyway.
        .systemLibrary(
            name: "CDNSSD",
            providers: [.apt(["libavahi-compat-libdnssd-dev"])]
        ),
        // Sets AVAHI_COMPAT_NOWARN as the program loads, while only the main thread exists
        // (setenv later would race with other threads' getenv).
        .target(name: "CDNSSDQuiet"),
        .target(
            name: "StreamTaskDNSSD",
            dependencies: [
                "CDNSSD",
                "CDNSSDQuiet",
                "StreamTaskCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // On Darwin the DNS-SD functions are part of libSystem; on Linux they are libdns_sd.
            linkerSettings: [.linkedLibrary("dns_sd", .when(platforms: [.linux]))]
        ),
        // The chat example's protocol (Protocol.md): messages, numerics, names. No I/O, and no
        // dependency but the standard library, so the server, the client and tests share it.
        .target(
            name: "ChatProtocol",
            path: "Examples/ChatProtocol"
        ),
        // What every example command line shares: signal handling and output.
        .target(
            name: "ExampleSupport",
            path: "Examples/ExampleSupport"
        ),
        // The chat server's protocol state (plain values) and the I/O around it.
        .target(
            name: "ChatServerCore",
            dependencies: [
                "ChatProtocol",
                "StreamTaskKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/ChatServerCore"
        ),
        .executableTarget(
            name: "chat-server",
            dependencies: [
                "ChatProtocol",
                "ChatServerCore",
                "ExampleSupport",
                "StreamTaskDNSSD",
                "StreamTaskKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/chat-server"
        ),
        // The chat client's session state, input commands and display (plain values), the
        // terminal UI, and the connection around them.
        .target(
            name: "ChatClientCore",
            dependencies: [
                "ChatProtocol",
                "ExampleSupport",
                "StreamTaskDNSSD",
                "StreamTaskKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Examples/ChatClientCore"
        ),
        .executableTarget(
            name: "chat-client",
            dependencies: [
                "ChatClientCore",
                "ChatProtocol",
                "ExampleSupport",
                "StreamTaskDNSSD",
                "StreamTaskKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/chat-client"
        ),
        .executableTarget(
            name: "echo-server",
            dependencies: [
                "ExampleSupport",
                "StreamTaskKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/echo-server"
        ),
        .executableTarget(
            name: "echo-client",
            dependencies: [
                "ExampleSupport",
                "StreamTaskKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/echo-client"
        ),
        .executableTarget(
            name: "json-kv",
            dependencies: [
                "ExampleSupport",
                "StreamTaskKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/json-kv"
        ),
        // The Swift samples of README.md and the DocC articles, compiled: the fragments as
        // function bodies, the whole programs as executables that scripts/test.sh runs against
        // the example servers. scripts/check-samples.py checks that each is its document's text.
        .target(
            name: "DocSamples",
            dependencies: [
                "StreamTaskDNSSD",
                "StreamTaskKit",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Examples/Samples/DocSamples"
        ),
        .executableTarget(
            name: "sample-client", dependencies: ["StreamTaskKit"], path: "Examples/Samples/sample-client"),
        .executableTarget(
            name: "sample-server", dependencies: ["StreamTaskKit"], path: "Examples/Samples/sample-server"),
        .executableTarget(
            name: "sample-dnssd", dependencies: ["StreamTaskDNSSD", "StreamTaskKit"],
            path: "Examples/Samples/sample-dnssd"),
        // Darwin programs (Tests/DarwinPrograms) as scripts/port-from-darwin.sh ports them, in the
        // Swift 5 language mode most Darwin code is written in; the tests run them against real peers.
        .executableTarget(
            name: "ported-irc-bot", dependencies: ["StreamTaskKit"], path: "Examples/Ported/irc-bot",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-bonjour-chat", dependencies: ["StreamTaskKit", "StreamTaskDNSSD"],
            path: "Examples/Ported/bonjour-chat", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-smtp-mailer", dependencies: ["StreamTaskKit"], path: "Examples/Ported/smtp-mailer",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-upgrade-client", dependencies: ["StreamTaskKit"], path: "Examples/Ported/upgrade-client",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-line-client", dependencies: ["StreamTaskKit"], path: "Examples/Ported/line-client",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-bonjour-announcer", dependencies: ["StreamTaskKit", "StreamTaskDNSSD"],
            path: "Examples/Ported/bonjour-announcer", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-bonjour-streams", dependencies: ["StreamTaskKit", "StreamTaskDNSSD"],
            path: "Examples/Ported/bonjour-streams", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-bonjour-echo-server", dependencies: ["StreamTaskKit", "StreamTaskDNSSD"],
            path: "Examples/Ported/bonjour-echo-server", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-streams-mailer", dependencies: ["StreamTaskKit"], path: "Examples/Ported/streams-mailer",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-checked-line-client", dependencies: ["StreamTaskKit"],
            path: "Examples/Ported/checked-line-client", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "ported-runloop-irc-client", dependencies: ["StreamTaskKit"],
            path: "Examples/Ported/runloop-irc-client", swiftSettings: [.swiftLanguageMode(.v5)]),
        // What several test targets share: child processes, blocking work off the pool.
        .target(
            name: "StreamTaskTestSupport",
            dependencies: [.product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Tests/StreamTaskTestSupport"
        ),
        .testTarget(
            name: "StreamTaskKitTests",
            dependencies: [
                "StreamTaskCore",
                "StreamTaskFraming",
                "StreamTaskRoutes",
                "StreamTaskRouteWatch",
                "StreamTaskHTTP",
                "StreamTaskKit",
                "StreamTaskTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["Peers"]
        ),
        .testTarget(
            name: "ChatProtocolTests",
            dependencies: ["ChatProtocol"]
        ),
        // The chat server and client: their state as values, end to end over loopback, and
        // against real IRC software. Depends on the executables so that they are built.
        .testTarget(
            name: "ChatTests",
            dependencies: [
                "ChatClientCore",
                "ChatProtocol",
                "ChatServerCore",
                "StreamTaskDNSSD",
                "StreamTaskKit",
                "StreamTaskTestSupport",
                "chat-client",
                "chat-server",
                "ported-irc-bot",
                "ported-bonjour-chat",
                "ported-smtp-mailer",
                "ported-upgrade-client",
                "ported-line-client",
                "ported-bonjour-announcer",
                "ported-bonjour-streams",
                "ported-streams-mailer",
                "ported-bonjour-echo-server",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Lab"]
        ),
        .testTarget(
            name: "StreamTaskDNSSDTests",
            dependencies: [
                "StreamTaskDNSSD",
                "StreamTaskCore",
                "StreamTaskKit",
                "StreamTaskTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ]
)
