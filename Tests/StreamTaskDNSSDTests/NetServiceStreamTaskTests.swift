//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit
import Testing

@testable import StreamTaskDNSSD

/// `streamTask(with: NetService)` as Apple's: a suspended task at once, resolved on resume.
@Suite(.timeLimit(.minutes(1))) struct NetServiceStreamTaskTests {
    /// The error the task completed with (`nil` after an orderly end).
    private func completion(of task: StreamTask) async -> StreamTaskError? {
        for await event in task.events {
            if case .completed(let error) = event { return error }
        }
        return task.streamTaskError
    }

    @Test func aTaskToANetServiceStartsSuspendedAndResolvesOnResume() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let server = try await AdvertisedEchoServer.start(name: name, type: type)

        // A proxy where nothing listens: a service on the local network is reached directly.
        let session = StreamSession(configuration: .init(proxy: .socks5(host: "127.0.0.1", port: 9)))
        let task = session.streamTask(with: NetService(domain: "local.", type: type + ".", name: name))
        #expect(task.state == .suspended)
        #expect(task.host.contains(name))
        // Queued before resume, sent once connected.
        task.write(Data("hello\n".utf8), timeout: 10) { error in
            #expect(error == nil)
        }
        #expect(task.metrics.domainLookupStartDate == nil)
        task.resume()
        #expect(try await readToEnd(task) == "echo: hello\n")
        #expect(task.metrics.isProxyConnection == false)
        #expect(task.metrics.remotePort == server.listener.port)
        task.cancel()
        await server.stop()
    }

    @Test func aNetServiceThatDoesNotResolveFailsAsCannotFindHost() async throws {
        try await requireDaemon()
        let name = uniqueServiceName("nobody")
        let configuration = StreamSessionConfiguration.default
        // 10 s to resolve, and 10 s more before the task's own connect timeout: the DNS-SD
        // queue is shared by every test of the suite, and under the full suite's load it has
        // been seen several seconds behind, which with 3 s and 3 s let the connect timeout fire
        // first (connectTimeout, not the resolver's hostNotFound).
        configuration.timeoutIntervalForRequest = 20
        let task = StreamSession(configuration: configuration).streamTask(
            with: NetService(domain: "local.", type: uniqueServiceType() + ".", name: name))
        task.resume()
        let error = await completion(of: task)
        #expect(error?.code == .hostNotFound, "\(String(describing: error))")
        #expect(error?.message.contains(name) == true, "\(String(describing: error))")
        #expect((task.error as? URLError)?.code == .cannotFindHost)
    }
}
