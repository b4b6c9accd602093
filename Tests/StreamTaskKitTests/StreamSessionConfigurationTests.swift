//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// `StreamSessionConfiguration` behaves as `URLSessionConfiguration`: a class with Apple's
/// names and defaults, fresh from `.default`, copied by the session; and the session's
/// Apple-shaped members (`shared`, an `OperationQueue` as delegate queue).
@Suite(.timeLimit(.minutes(1))) struct StreamSessionConfigurationTests {
    @Test func applesDefaults() {
        let configuration = StreamSessionConfiguration.default
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.timeoutIntervalForResource == 7 * 24 * 60 * 60)
        #expect(configuration.httpMaximumConnectionsPerHost == 6)
        #expect(configuration.connectionProxyDictionary == nil)
        #expect(configuration.proxy == .environment)
        #expect(configuration.waitsForConnectivity == false)
        #expect(configuration.allowsCellularAccess)
        #expect(configuration.identifier == nil)
        // Apple's: the session's own floor is TLS 1.0, and App Transport Security, on by
        // default (the test process has no Info.plist), raises it to TLS 1.2 where it applies.
        #expect(configuration.tlsMinimumSupportedProtocolVersion == .TLSv10)
        #expect(configuration.transportSecurity == StreamTransportSecurity())
        #expect(configuration.transportSecurity.allowsArbitraryLoads == false)
        #expect(configuration.tlsMaximumSupportedProtocolVersion == .TLSv13)
    }

    @Test func defaultAndEphemeralAreNewEachTimeAndTheSessionKeepsACopy() {
        let first = StreamSessionConfiguration.default
        first.timeoutIntervalForRequest = 5
        #expect(StreamSessionConfiguration.default.timeoutIntervalForRequest == 60)
        #expect(StreamSessionConfiguration.ephemeral.timeoutIntervalForRequest == 60)

        let session = StreamSession(configuration: first)
        first.timeoutIntervalForRequest = 7
        #expect(session.configuration.timeoutIntervalForRequest == 5)
        // What the session hands out is a copy too.
        session.configuration.timeoutIntervalForRequest = 9
        #expect(session.configuration.timeoutIntervalForRequest == 5)
        #expect(session.configuration !== session.configuration)

        let copy = first.copy()
        copy.timeoutIntervalForRequest = 11
        #expect(first.timeoutIntervalForRequest == 7)
        #expect((first.copy(with: nil) as? StreamSessionConfiguration)?.timeoutIntervalForRequest == 7)
    }

    @Test func tlsVersionsAreViewsOfTheTLSConfiguration() {
        let configuration = StreamSessionConfiguration.default
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv13
        #expect(configuration.tls.minimumVersion == .tls1_3)
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv10
        configuration.tlsMaximumSupportedProtocolVersion = .TLSv12
        #expect(configuration.tls.minimumVersion == .tls1_0)
        #expect(configuration.tls.maximumVersion == .tls1_2)
        #expect(configuration.tlsMaximumSupportedProtocolVersion == .TLSv12)
        // DTLS is not TLS: ignored, the versions stay as they were.
        configuration.tlsMinimumSupportedProtocolVersion = .DTLSv12
        #expect(configuration.tls.minimumVersion == .tls1_0)
        configuration.tlsMaximumSupportedProtocolVersion = .TLSv13
        #expect(configuration.tls.maximumVersion == nil)
    }

    @Test func theProxyDictionaryUsesApplesKeysAndOrder() {
        let configuration = StreamSessionConfiguration.default
        configuration.connectionProxyDictionary = [
            kCFNetworkProxiesSOCKSEnable: 1, kCFNetworkProxiesSOCKSProxy: "127.0.0.1",
            kCFNetworkProxiesSOCKSPort: 1081,
        ]
        #expect(configuration.proxy == .socks5(host: "127.0.0.1", port: 1081))
        #expect(configuration.connectionProxyDictionary?[kCFNetworkProxiesSOCKSPort] as? Int == 1081)

        // HTTPS before SOCKS; numbers may come as strings or NSNumbers; no port means 443.
        configuration.connectionProxyDictionary = [
            "HTTPSEnable": NSNumber(value: 1), "HTTPSProxy": "proxy.example", "SOCKSEnable": "1",
            "SOCKSProxy": "socks.example",
        ]
        #expect(configuration.proxy == .httpConnect(host: "proxy.example", port: 443))
        // A plain HTTP proxy tunnels with CONNECT; a port out of range falls back to 80.
        configuration.connectionProxyDictionary = ["HTTPEnable": true, "HTTPProxy": "web.example", "HTTPPort": 70000]
        #expect(configuration.proxy == .httpConnect(host: "web.example", port: 80))
        // Enabled without a host, or not enabled, is no proxy; an empty dictionary means none.
        configuration.connectionProxyDictionary = ["HTTPSEnable": 1, "SOCKSEnable": 0, "SOCKSProxy": "socks.example"]
        #expect(configuration.proxy == .direct)
        configuration.connectionProxyDictionary = [:]
        #expect(configuration.proxy == .direct)
        // nil is the system's settings: the environment.
        configuration.connectionProxyDictionary = nil
        #expect(configuration.proxy == .environment)
        // Setting the library's own property forgets the dictionary.
        configuration.connectionProxyDictionary = [:]
        configuration.proxy = .socks5(host: "127.0.0.1")
        #expect(configuration.connectionProxyDictionary == nil)
    }

    @Test func completionHandlersRunOnTheOperationQueueGiven() async throws {
        let server = try await LoopbackServer.start()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "delegate queue of the test"
        let session = StreamSession(configuration: .init(proxy: .direct), delegate: nil, delegateQueue: queue)
        #expect(session.delegateQueue === queue)
        let task = session.loopbackTask(port: server.port)
        let onQueue = await withCheckedContinuation { continuation in
            task.write(Data("x".utf8), timeout: 5) { _ in
                continuation.resume(returning: OperationQueue.current === queue)
            }
        }
        #expect(onQueue)
        task.cancel()
        await server.stop()
    }

    @Test func aSessionOfItsOwnReportsASerialQueue() {
        let session = StreamSession()
        #expect(session.delegateQueue.maxConcurrentOperationCount == 1)
        #expect(session.delegateQueue.underlyingQueue != nil)
        session.sessionDescription = "mine"
        #expect(session.sessionDescription == "mine")
    }

    @Test func theSharedSessionCannotBeInvalidated() {
        let shared = StreamSession.shared
        #expect(shared === StreamSession.shared)
        shared.finishTasksAndInvalidate()
        shared.invalidateAndCancel()
        let task = shared.streamTask(withHostName: "127.0.0.1", port: 9)
        #expect(task.state == .suspended)
        #expect(task.error == nil)
        task.cancel()
    }
}
