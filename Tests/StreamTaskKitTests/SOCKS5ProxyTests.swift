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
import Testing

@testable import StreamTaskCore

/// Tasks through SOCKS5 proxies: dante (`danted`), started by each test.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SOCKS5ProxyTests {
    @Test func greetingEchoHalfCloseAndMetricsThroughDante() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante() }) { proxy in
            let target = try await GreetingServer.start()
            let task = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port)).loopbackTask(
                port: target.port)
            try await task.converseWithGreetingServer()
            #expect(await task.waitUntilCompleted() == nil)
            let metrics = task.metrics
            #expect(metrics.isProxyConnection)
            #expect(metrics.proxyKind == .socks5)
            #expect(metrics.remotePort == proxy.port)
            #expect(
                metrics.countOfBytesReceived
                    == Int64(GreetingServer.greeting.utf8.count + 5 + "bye after 5 bytes\n".utf8.count))
            await target.stop()
        }
    }

    /// The first address `localhost` resolves to here: where a target for that name listens.
    private func localhostAddress() throws -> String {
        try #require(try NameResolver.addresses(host: "localhost", port: 1).first?.ipAddress)
    }

    @Test(arguments: [true, false])
    func hostNamesResolvedByTheProxyOrHere(atProxy: Bool) async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante() }) { proxy in
            let target = try await GreetingServer.start(host: try localhostAddress())
            let scheme = atProxy ? "socks5h" : "socks5"
            let session = StreamSession(proxy: .environment(["all_proxy": "\(scheme)://127.0.0.1:\(proxy.port)"]))
            let task = session.streamTask(withHostName: "localhost", port: target.port)
            task.resume()
            try await task.converseWithGreetingServer()
            #expect(task.metrics.proxyKind == .socks5)
            await target.stop()
        }
    }

    /// What the request itself carries, read by a SOCKS server of the test's own: the name
    /// (address type 3) for `socks5h`, the address it resolved to here for `socks5`. (Through
    /// dante, above, both ways reach the target; only the request tells who resolved the name.)
    @Test(arguments: [true, false])
    func theRequestCarriesTheNameOrTheAddressResolvedHere(atProxy: Bool) async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        let proxy = ProxyConfiguration.socks5(
            host: "127.0.0.1", port: try #require(listener.port), resolvesHostNames: atProxy)
        let task = StreamSession(proxy: proxy).streamTask(withHostName: "localhost", port: 4242)
        task.resume()
        let server = try #require(await accepted.next())

        func read(_ count: Int) async throws -> [UInt8] {
            let (data, _) = try await server.readData(ofMinLength: count, maxLength: count, timeout: 10)
            return Array(try #require(data))
        }
        #expect(try await read(3) == [0x05, 0x01, 0x00], "a greeting offering no authentication")
        try await server.write(Data([0x05, 0x00]), timeout: 10)
        let head = try await read(4)
        #expect(Array(head.prefix(3)) == [0x05, 0x01, 0x00], "CONNECT")
        switch head[3] {
        case 0x03:
            let length = Int(try await read(1)[0])
            #expect(atProxy, "a name was sent for socks5")
            #expect(String(decoding: try await read(length), as: UTF8.self) == "localhost")
        case 0x01, 0x04:
            let packed = try await read(head[3] == 0x01 ? 4 : 16)
            #expect(!atProxy, "an address was sent for socks5h")
            let address = try SocketAddress(packedIPAddress: ByteBuffer(bytes: packed), port: 4242)
            #expect(address.ipAddress == (try localhostAddress()))
        default:
            Issue.record("address type \(head[3])")
        }
        #expect(try await read(2) == [0x10, 0x92], "port 4242")

        // "Connection not allowed by ruleset": the task fails as the proxy refusing.
        try await server.write(Data([0x05, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0]), timeout: 10)
        await #expect {
            _ = try await task.readData(ofMinLength: 1, maxLength: 1, timeout: 10)
        } throws: { error in
            (error as? StreamTaskError)?.code == .proxyRefused
        }
        server.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func usernameAndPasswordAuthentication() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante(authenticate: true) }) { proxy in
            let target = try await GreetingServer.start()
            let user = ProxyProcess.socksUser

            let good = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port, credentials: user))
                .loopbackTask(port: target.port)
            try await good.converseWithGreetingServer()

            let wrong = ProxyCredentials(username: user.username, password: "not-the-password")
            let impostor = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port, credentials: wrong))
                .loopbackTask(port: target.port)
            let rejected = await expectStreamError(.proxyAuthenticationRequired) { try await impostor.write("x") }
            #expect(
                rejected?.description.contains("SOCKS5 proxy 127.0.0.1:\(proxy.port) rejected the credentials") == true)
            #expect(rejected?.description.contains("(127.0.0.1:\(target.port))") == true)

            let anonymous = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port)).loopbackTask(
                port: target.port)
            let missing = await expectStreamError(.proxyAuthenticationRequired) { try await anonymous.write("x") }
            #expect(missing?.message.contains("no credentials were given") == true)
            await target.stop()
        }
    }

    @Test func aRefusedTargetIsConnectionRefusedNamingBoth() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante() }) { proxy in
            let (error, port) = try await connectToAClosedPort(
                through: .socks5(host: "127.0.0.1", port: proxy.port), expecting: .connectionRefused)
            let description = error?.description ?? ""
            #expect(
                description.contains("SOCKS5 proxy 127.0.0.1:\(proxy.port) could not open a tunnel: connection refused")
            )
            #expect(description.contains("(127.0.0.1:\(port))"), "\(description)")
        }
    }
}
