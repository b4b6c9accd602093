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

/// Tasks through HTTP CONNECT proxies: tinyproxy, started by each test, and fakes of our own
/// for what tinyproxy will not do (relay a half-close, misbehave).
@Suite(.serialized, .timeLimit(.minutes(1))) struct HTTPConnectProxyTests {
    @Test func greetingEchoAndMetricsThroughTinyproxy() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { proxy in
            let target = try await GreetingServer.start()
            let task = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port))
                .loopbackTask(port: target.port)
            // tinyproxy closes the whole tunnel at the first end of stream, so no half-close here;
            // `halfCloseThroughARelayingProxy` covers that.
            try await task.converseWithGreetingServer(halfClose: false)
            let metrics = task.metrics
            #expect(metrics.isProxyConnection)
            #expect(metrics.proxyKind == .httpConnect)
            #expect(metrics.remotePort == proxy.port, "the connection's far end is the proxy")
            #expect(metrics.connectEndDate != nil)
            task.cancel()
            await target.stop()
        }
    }

    /// With or without the brackets of a URL: the request brackets the address once.
    @Test(arguments: ["::1", "[::1]"])
    func anIPv6TargetThroughTinyproxy(host: String) async throws {
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { proxy in
            let target = try await GreetingServer.start(host: "::1")
            let task = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port))
                .streamTask(withHostName: host, port: target.port)
            #expect(task.host == "::1")
            task.resume()
            try await task.converseWithGreetingServer(halfClose: false)
            task.cancel()
            await target.stop()
        }
    }

    @Test func basicAuthenticationWithTinyproxy() async throws {
        let credentials = ProxyCredentials(username: "stkuser", password: "s3cret")
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy(credentials: credentials) }) { proxy in
            let target = try await GreetingServer.start()

            let good = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port, credentials: credentials))
                .loopbackTask(port: target.port)
            try await good.converseWithGreetingServer(halfClose: false)
            good.cancel()

            let anonymous = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port))
                .loopbackTask(port: target.port)
            let missing = await expectStreamError(.proxyAuthenticationRequired) { try await anonymous.write("x") }
            #expect(missing?.message.contains("407") == true)
            #expect(missing?.message.contains("no credentials") == true)

            let wrong = ProxyCredentials(username: "stkuser", password: "wrong")
            let impostor = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port, credentials: wrong))
                .loopbackTask(port: target.port)
            let rejected = await expectStreamError(.proxyAuthenticationRequired) {
                try await impostor.readData(ofMinLength: 1, maxLength: 1, timeout: 10)
            }
            #expect(rejected?.description.contains("rejected the credentials for user \"stkuser\"") == true)
            #expect(rejected?.description.contains("HTTP proxy 127.0.0.1:\(proxy.port)") == true)
            #expect(rejected?.description.contains("127.0.0.1:\(target.port)") == true)
            #expect(rejected?.description.contains("wrong") == false, "never the password")
            await target.stop()
        }
    }

    @Test func aRefusedTargetNamesTheTargetAndTheProxy() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy() }) { proxy in
            let (error, port) = try await connectToAClosedPort(
                through: .httpConnect(host: "127.0.0.1", port: proxy.port), expecting: .proxyRefused)
            #expect(error?.host == "127.0.0.1")
            #expect(error?.port == port)
            let description = error?.description ?? ""
            #expect(
                description.contains("HTTP proxy 127.0.0.1:\(proxy.port) refused to open a tunnel: 500"),
                "\(description)")
            #expect(description.contains("(127.0.0.1:\(port))"), "\(description)")
        }
    }

    @Test func theEnvironmentPicksTheProxyAndNoProxySkipsIt() async throws {
        let credentials = ProxyCredentials(username: "env_user", password: "pa.ss-1")
        try await ProxyProcess.with({ try await ProxyProcess.tinyproxy(credentials: credentials) }) { proxy in
            let target = try await GreetingServer.start()
            // Percent-encoded credentials in the URL; tinyproxy checks the decoded ones. (Its
            // configuration takes only letters, digits and ._- in them.)
            let url = "http://env%5Fuser:pa%2Ess%2D1@127.0.0.1:\(proxy.port)"

            let proxied = StreamSession(proxy: .environment(["HTTPS_PROXY": url, "no_proxy": "example.com"]))
                .loopbackTask(port: target.port)
            try await proxied.converseWithGreetingServer(halfClose: false)
            #expect(proxied.metrics.proxyKind == .httpConnect)
            proxied.cancel()

            let direct = StreamSession(proxy: .environment(["https_proxy": url, "NO_PROXY": "127.0.0.0/8"]))
                .loopbackTask(port: target.port)
            try await direct.converseWithGreetingServer()
            #expect(direct.metrics.isProxyConnection == false)
            #expect(direct.metrics.proxyKind == nil)
            #expect(direct.metrics.remotePort == target.port)
            await target.stop()
        }
    }

    @Test func aBadProxyVariableFailsTheTaskClearly() async throws {
        let task = StreamSession(proxy: .environment(["all_proxy": "socks4://127.0.0.1:1080"])).loopbackTask(port: 9)
        let error = await expectStreamError(.invalidArgument) { try await task.write("x") }
        #expect(error?.message.contains("in all_proxy") == true)
    }

    // MARK: Fakes

    @Test func halfCloseThroughARelayingProxy() async throws {
        let proxy = try await FakeConnectProxy.start(.relay)
        let target = try await GreetingServer.start()
        let task = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port)).loopbackTask(
            port: target.port)
        // The fake sends the 200 and the greeting in one write: the greeting must survive.
        try await task.converseWithGreetingServer()
        #expect(await task.waitUntilCompleted() == nil)
        #expect(await eventually { proxy.events.values == ["request", "relayed"] })
        await target.stop()
        await proxy.stop()
    }

    @Test func anEndlessHeaderFailsFast() async throws {
        let (proxy, task, error) = try await FakeConnectProxy.failure(.endlessHeader, expecting: .proxyProtocolError)
        #expect(error?.message.contains("longer than \(HTTPConnectHandshake.maximumHeadLength) bytes") == true)
        #expect(task.metrics.countOfBytesReceived == 0)
        #expect(await eventually { proxy.events.values.count == 2 })
        #expect(proxy.events.values.last?.hasPrefix("error") == true, "the proxy was cut off before 10 MiB")
        await proxy.stop()
    }

    @Test func garbageFailsAtOnce() async throws {
        let (proxy, _, error) = try await FakeConnectProxy.failure(.garbage, expecting: .proxyProtocolError)
        #expect(error?.message.contains("SSH-2.0") == true)
        await proxy.stop()
    }

    @Test func aSilentProxyTimesOutTheHandshake() async throws {
        let started = Date()
        let (proxy, _, error) = try await FakeConnectProxy.failure(
            .silent, expecting: .proxyHandshakeTimeout, handshakeTimeout: 0.5)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(
            error?.description.contains("HTTP proxy 127.0.0.1:\(proxy.port) did not complete the handshake") == true)
        #expect(error?.description.contains("127.0.0.1:7") == true)
        #expect(
            await eventually { proxy.events.values == ["request", "closed by client"] }, "the connection was closed")
        await proxy.stop()
    }

    @Test func cancellingDuringTheHandshakeClosesTheConnection() async throws {
        let proxy = try await FakeConnectProxy.start(.silent)
        let task = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: proxy.port)).loopbackTask(port: 7)
        // Once the proxy has the request, the task is in the handshake.
        #expect(await eventually { proxy.events.values == ["request"] })
        task.cancel()
        #expect(await task.waitUntilCompleted()?.code == .cancelled)
        #expect(await eventually { proxy.events.values == ["request", "closed by client"] })
        await proxy.stop()
    }

    @Test func anUnreachableProxyNamesProxyAndTarget() async throws {
        let closed = try ClosedPort()
        let task = StreamSession(proxy: .httpConnect(host: "127.0.0.1", port: closed.port)).loopbackTask(port: 7)
        let error = await expectStreamError(.proxyConnectFailed) { try await task.write("x") }
        #expect(error?.errno == ECONNREFUSED)
        #expect(error?.description.contains("could not connect to the HTTP proxy 127.0.0.1:\(closed.port)") == true)
        #expect(error?.description.contains("(127.0.0.1:7)") == true)
        #expect(task.metrics.isProxyConnection)
        closed.release()
    }
}
