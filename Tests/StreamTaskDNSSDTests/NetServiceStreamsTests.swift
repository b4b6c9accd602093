//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation
import StreamTaskKit
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// `NetService.getInputStream(_:outputStream:)` as Darwin's: a pair of streams at once,
/// connected to the service when opened, used by a Darwin-style stream delegate.
@Suite(.timeLimit(.minutes(1))) struct NetServiceStreamsTests {
    @Test func theStreamsConnectWhenOpenedAndConverseWithTheService() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let server = try await AdvertisedEchoServer.start(name: name, type: type)
        let service = NetService(domain: "local.", type: type + ".", name: name)
        var input: InputStream?
        var output: OutputStream?
        #expect(service.getInputStream(&input, outputStream: &output))
        let streams = try (#require(input), #require(output))
        #expect(streams.0.streamStatus == .notOpen)
        #expect(streams.1.streamStatus == .notOpen)

        let conversation = DelegateConversation(
            input: streams.0, output: streams.1, line: "hello\n", readSize: 4)
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(conversation.received == "echo: hello\n")
        let inputEvents = conversation.events.filter { $0.stream == "input" }.map(\.event)
        #expect(inputEvents.first == .openCompleted)
        #expect(inputEvents.last == .endEncountered)
        let outputEvents = conversation.events.filter { $0.stream == "output" }.map(\.event)
        #expect(Array(outputEvents.prefix(2)) == [.openCompleted, .hasSpaceAvailable])
        #expect(conversation.errors.isEmpty, "\(conversation.errors)")
        await server.stop()
    }

    @Test func streamsReleasedUnopenedLeaveNoTaskBehind() async throws {
        let name = uniqueServiceName("never opened")
        func tasksToTheService() -> Int {
            StreamSession.shared.allTasks.filter { $0.host.contains(name) }.count
        }
        do {
            var input: InputStream?
            var output: OutputStream?
            let service = NetService(domain: "local.", type: uniqueServiceType() + ".", name: name)
            #expect(service.getInputStream(&input, outputStream: &output))
            #expect(tasksToTheService() == 1)
            #expect(input?.streamStatus == .notOpen)
        }
        #expect(await eventually { tasksToTheService() == 0 })
    }

    @Test func aServiceThatRefusesTheConnectionIsTheStreamsError() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let closed = try ClosedPort()
        let registration = try await DNSSDRegistration.register(
            name: uniqueServiceName("refusing"), type: type, port: closed.port)
        let service = NetService(domain: "local.", type: type + ".", name: registration.name)
        var input: InputStream?
        var output: OutputStream?
        #expect(service.getInputStream(&input, outputStream: &output))
        let streams = try (#require(input), #require(output))

        let conversation = DelegateConversation(
            input: streams.0, output: streams.1, line: "hello\n", readSize: 4)
        // Ends with errorOccurred: never opened, nothing read.
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(conversation.events.contains { $0.event == .errorOccurred })
        #expect(!conversation.events.contains { $0.event == .openCompleted })
        #expect(conversation.received.isEmpty)
        #expect(!conversation.errors.isEmpty)
        for (stream, error) in conversation.errors {
            #expect((error as? StreamTaskError)?.code == .connectionRefused, "\(stream): \(error)")
        }
        registration.cancel()
        _ = closed
    }
}
#endif
