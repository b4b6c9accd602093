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

/// `Stream.getStreamsToHost(withName:port:inputStream:outputStream:)`, which Foundation on
/// Linux lacks, used as Darwin programs use it: a delegate on a run loop, over loopback.
@Suite(.timeLimit(.minutes(1))) struct SocketStreamsTests {
    /// A listener whose first connection gets `greeting`, then its own bytes back until the
    /// end; the task returns what it received before the end (or the connection's failure).
    private func echoing(greeting: String) async throws -> (LoopbackServer, Task<Data, Never>) {
        let server = try await LoopbackServer.start()
        let serving = Task { () -> Data in
            var received = Data()
            var accepted = server.listener.connections.makeAsyncIterator()
            guard let peer = try? await server.accept(&accepted) else { return received }
            do {
                if !greeting.isEmpty { try await peer.write(greeting) }
                while true {
                    let (data, atEOF) = try await peer.readData(ofMinLength: 1, maxLength: 4096, timeout: 10)
                    if let data, !data.isEmpty {
                        received += data
                        try await peer.write(data, timeout: 10)
                    }
                    if atEOF { break }
                }
                peer.closeWrite()
            } catch {
                peer.cancel()
            }
            return received
        }
        return (server, serving)
    }

    @Test func theStreamsConnectWhenOpenedAndConverse() async throws {
        let (server, serving) = try await echoing(greeting: "hello\n")
        var input: InputStream?
        var output: OutputStream?
        Stream.getStreamsToHost(withName: "127.0.0.1", port: server.port, inputStream: &input, outputStream: &output)
        let streams = try (#require(input), #require(output))
        #expect(streams.0.streamStatus == .notOpen)
        let conversation = DelegateConversation(input: streams.0, output: streams.1, line: "echo me\n", readSize: 5)
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(await serving.value == Data("echo me\n".utf8))
        #expect(conversation.received == "hello\necho me\n")
        #expect(conversation.events.first { $0.stream == "input" }?.event == .openCompleted)
        #expect(conversation.errors.isEmpty, "\(conversation.errors)")
        await server.stop()
    }

    @Test func aRefusedConnectionIsTheStreamsError() async throws {
        let closed = try ClosedPort()
        var input: InputStream?
        var output: OutputStream?
        InputStream.getStreamsToHost(
            withName: "127.0.0.1", port: closed.port, inputStream: &input, outputStream: &output)
        let conversation = DelegateConversation(
            input: try #require(input), output: try #require(output), line: "unsent\n", readSize: 5)
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(!conversation.errors.isEmpty)
        for (stream, error) in conversation.errors {
            #expect((error as? StreamTaskError)?.code == .connectionRefused, "\(stream): \(error)")
        }
        #expect(!conversation.events.contains { $0.event == .openCompleted })
        _ = closed
    }

    @Test func tlsAskedBeforeOpeningChecksTheServerAndSendsNothingToOneUntrusted() async throws {
        // The shared session trusts the system's roots, which do not hold the test CA.
        let certificates = try await TestCertificates.get()
        let server = try await LoopbackServer.start()
        let serving = Task { () -> Data in
            var accepted = server.listener.connections.makeAsyncIterator()
            guard let peer = try? await server.accept(&accepted) else { return Data() }
            try? await peer.startTLS(asServerWith: certificates.serverConfiguration(), timeout: 10)
            var received = Data()
            while let (data, atEOF) = try? await peer.readData(ofMinLength: 1, maxLength: 4096, timeout: 10) {
                received += data ?? Data()
                if atEOF { break }
            }
            return received
        }
        var input: InputStream?
        var output: OutputStream?
        Stream.getStreamsToHost(withName: "127.0.0.1", port: server.port, inputStream: &input, outputStream: &output)
        let streams = try UncheckedStreams(input: #require(input), output: #require(output))
        // Darwin code passes the level itself, and ignores the answer.
        streams.input.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
        #expect(streams.output.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey))
        // Streams open once TLS is up, as Darwin's do: these never do.
        let conversation = DelegateConversation(
            input: streams.input, output: streams.output, line: "secret\n", readSize: 5)
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(!conversation.events.contains { $0.event == .openCompleted }, "\(conversation.events)")
        #expect(!conversation.errors.isEmpty, "told of the failure")
        for (name, error) in conversation.errors {
            let error = error as? StreamTaskError
            #expect(error?.code == .tlsUntrustedCertificate, "\(name): \(String(describing: error))")
        }
        // The conversation closed the input; the output stays failed.
        let written = await offCooperativePool { streams.output.write(Array("secret\n".utf8), maxLength: 7) }
        #expect(written == -1)
        #expect(streams.output.streamStatus == .error)
        #expect((streams.output.streamError as? StreamTaskError)?.code == .tlsUntrustedCertificate)
        // The connection ended with nothing sent in the clear.
        #expect(await serving.value.isEmpty)
        await server.stop()
    }

    @Test func streamsOfAConnectionTLSProtectsAlreadyAcceptTheLevelAndGoOn() async throws {
        let certificates = try await TestCertificates.get()
        let (server, client, peer) = try await LoopbackServer.connectedPair(
            configuration: .init(tls: try certificates.clientConfiguration()))
        try await client.startTLS(with: peer, serverConfiguration: try certificates.serverConfiguration())
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        let streams = UncheckedStreams(input: input, output: output)
        #expect(
            streams.output.setProperty(
                StreamSocketSecurityLevel.negotiatedSSL.rawValue as NSString, forKey: .socketSecurityLevelKey))
        #expect(
            streams.input.property(forKey: .socketSecurityLevelKey) as? String
                == StreamSocketSecurityLevel.negotiatedSSL.rawValue)
        streams.input.open()
        streams.output.open()
        let written = await offCooperativePool { streams.output.write(Array("still secret\r\n".utf8), maxLength: 14) }
        #expect(written == 14)
        #expect(try await peer.readLine() == "still secret\r\n")
        #expect(streams.output.streamError == nil)
        streams.input.close()
        streams.output.close()
        await server.stop()
    }

    @Test func streamsReleasedUnopenedLeaveNoTaskBehind() async throws {
        let closed = try ClosedPort()
        func tasksToThePort() -> Int {
            StreamSession.shared.allTasks.filter { $0.port == closed.port }.count
        }
        do {
            var input: InputStream?
            var output: OutputStream?
            Stream.getStreamsToHost(
                withName: "127.0.0.1", port: closed.port, inputStream: &input, outputStream: &output)
            #expect(tasksToThePort() == 1)
        }
        #expect(await eventually { tasksToThePort() == 0 })
    }
}
