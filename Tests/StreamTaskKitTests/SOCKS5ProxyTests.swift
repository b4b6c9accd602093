import Foundation
import Testing

@testable import StreamTaskKit

/// Tasks through SOCKS5 proxies: dante (`danted`), started by each test.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SOCKS5ProxyTests {
    @Test func greetingEchoHalfCloseAndMetricsThroughDante() async throws {
        try await ProxyProcess.with({ try await ProxyProcess.dante() }) { proxy in
            let target = try await GreetingServer.start()
            let task = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port)).loopbackTask(port: target.port)
            try await task.converseWithGreetingServer()
            #expect(await task.waitUntilCompleted() == nil)
            let metrics = task.metrics
            #expect(metrics.isProxyConnection)
            #expect(metrics.proxyKind == .socks5)
            #expect(metrics.remotePort == proxy.port)
            #expect(metrics.countOfBytesReceived == Int64(GreetingServer.greeting.utf8.count + 5 + "bye after 5 bytes\n".utf8.count))
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
            #expect(rejected?.description.contains("SOCKS5 proxy 127.0.0.1:\(proxy.port) rejected the credentials") == true)
            #expect(rejected?.description.contains("(127.0.0.1:\(target.port))") == true)

            let anonymous = StreamSession(proxy: .socks5(host: "127.0.0.1", port: proxy.port)).loopbackTask(port: target.port)
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
            #expect(description.contains("SOCKS5 proxy 127.0.0.1:\(proxy.port) could not open a tunnel: connection refused"))
            #expect(description.contains("(127.0.0.1:\(port))"), "\(description)")
        }
    }
}
