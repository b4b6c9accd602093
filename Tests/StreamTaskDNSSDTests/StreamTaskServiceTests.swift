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

/// Connecting stream tasks to discovered services, over loopback.
@Suite(.timeLimit(.minutes(1))) struct StreamTaskServiceTests {
    @Test func aTaskToADiscoveredServiceExchangesData() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let server = try await AdvertisedEchoServer.start(name: name, type: type, txtRecord: ["proto": "echo"])
        #expect(server.registration.port == server.listener.port)

        let found = try await DNSSDBrowser(type: type).first("the advertised listener") { $0.service.name == name }
        // The session names a proxy where nothing listens: a discovered local service must be
        // reached directly all the same.
        let proxied = StreamSession(configuration: .init(proxy: .socks5(host: "127.0.0.1", port: 9)))
        let task = try await proxied.streamTask(with: found.service)
        #expect(task.state == .running)
        #expect(task.metrics.isProxyConnection == false)
        #expect(task.host == "127.0.0.1")
        #expect(task.port == server.listener.port)
        try await task.write(Data("hello\n".utf8), timeout: 10)
        #expect(try await readToEnd(task) == "echo: hello\n")
        task.cancel()
        await server.stop()
    }

    @Test func aServiceThatVanishedFailsClearly() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(name: name, type: type, port: 5555)
        let events = try await appearThenVanish(type: type) { registration.cancel() }
        let service = try #require(events.added?.service)
        #expect(events.removed == .removed(service))

        do {
            let task = try await StreamSession().streamTask(with: service, resolveTimeout: 2)
            Issue.record("connected to \(task) although the service is gone")
        } catch let error as DNSSDError {
            #expect(error.code == .serviceNotFound)
            #expect(error.description.contains(name), "\(error)")
            #expect(error.description.contains("not advertised any more"), "\(error)")
        }
    }

    @Test func aServiceWhoseAddressesRefuseFailsWithEachAddressNamed() async throws {
        try await requireDaemon()
        // A port nobody listens on: bind one, note it, close it.
        let closed = StreamListener(host: "127.0.0.1", port: 0)
        try await closed.start()
        let port = try #require(closed.port)
        await closed.shutdown()

        let registration = try await DNSSDRegistration.register(
            name: uniqueServiceName(), type: uniqueServiceType(), port: port)
        do {
            let task = try await StreamSession().streamTask(with: registration.service)
            Issue.record("connected to \(task) although nothing listens")
        } catch let error as DNSSDError {
            #expect(error.code == .connectFailed)
            #expect(error.description.contains("127.0.0.1 port \(port)"), "\(error)")
            #expect((error.underlyingError as? StreamTaskError)?.code == .connectionRefused, "\(error)")
        }
        registration.cancel()
    }

    @Test func aListenerMustBeStartedBeforeItIsAdvertised() async throws {
        let listener = StreamListener(host: "127.0.0.1", port: 0)
        do {
            let registration = try await listener.advertise(type: uniqueServiceType())
            Issue.record("advertised \(registration) without a port")
        } catch let error as DNSSDError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("start the listener"))
        }
    }
}
