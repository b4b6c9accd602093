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

/// TLS asked of captured streams through `socketSecurityLevelKey`, as Darwin programs ask it of
/// their socket streams: before opening them, or mid-stream after a STARTTLS command.
@Suite(.timeLimit(.minutes(1))) struct CapturedStreamsTLSTests {
    private static let level = StreamSocketSecurityLevel.negotiatedSSL

    /// A client whose session trusts the test CA, connected to `peer`, and its captured streams.
    private func capturedPair() async throws -> (LoopbackServer, UncheckedStreams, StreamTask, TestCertificates) {
        let certificates = try await TestCertificates.get()
        let (server, client, peer) = try await LoopbackServer.connectedPair(
            configuration: .init(tls: try certificates.clientConfiguration()))
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        return (server, UncheckedStreams(input: input, output: output), peer, certificates)
    }

    @Test func theStreamsUpgradeMidStreamAsAfterASTARTTLSCommand() async throws {
        let (server, streams, peer, certificates) = try await capturedPair()
        try await peer.write("220 go ahead\r\n")
        let goAhead = await offCooperativePool {
            streams.input.open()
            streams.output.open()
            return streams.readLine()
        }
        #expect(goAhead == "220 go ahead\r\n")
        // Having handed the line over, the input reads ahead again: the upgrade withdraws that
        // read, or the handshake would wait behind it for bytes the peer sends only after.
        #expect(streams.input.setProperty(Self.level, forKey: .socketSecurityLevelKey))
        #expect(streams.output.setProperty(Self.level, forKey: .socketSecurityLevelKey), "asked again: still taken")
        let level = streams.output.property(forKey: .socketSecurityLevelKey) as? String
        #expect(level == Self.level.rawValue)
        #expect(!streams.output.hasSpaceAvailable, "no space before the handshake")
        try await peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
        #expect(await eventually { streams.output.hasSpaceAvailable })
        let written = await offCooperativePool { streams.output.write(Array("AUTH secret\r\n".utf8), maxLength: 13) }
        #expect(written == 13)
        #expect(try await peer.readLine() == "AUTH secret\r\n")
        try await peer.write("235 accepted\r\n")
        #expect(await offCooperativePool { streams.readLine() } == "235 accepted\r\n")
        #expect(streams.input.streamError == nil && streams.output.streamError == nil)
        streams.input.close()
        streams.output.close()
        await server.stop()
    }

    @Test func tlsAskedBeforeOpeningProtectsTheFirstByteAndTheDelegateHearsOfSpaceAfterIt() async throws {
        let (server, streams, peer, certificates) = try await capturedPair()
        #expect(
            streams.input.setProperty(Self.level.rawValue as NSString, forKey: .socketSecurityLevelKey),
            "the raw value is taken too")
        let echoing = Task { () -> String in
            do {
                try await peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
                let received = try await peer.readToEnd()
                try await peer.write(received)
                peer.closeWrite()
                return received
            } catch {
                return "peer failed: \(error)"
            }
        }
        let conversation = DelegateConversation(
            input: streams.input, output: streams.output, line: "over TLS from the start\n", readSize: 5)
        #expect(await conversation.runOnThreadOfItsOwn())
        #expect(await echoing.value == "over TLS from the start\n")
        #expect(conversation.received == "over TLS from the start\n")
        #expect(conversation.errors.isEmpty, "\(conversation.errors)")
        let output = conversation.events.filter { $0.stream == "output" }.map(\.event)
        #expect(output.first == .openCompleted)
        #expect(output.contains(.hasSpaceAvailable))
        await server.stop()
    }

    @Test func whatTheSecurityLevelTakes() async throws {
        let (server, streams, peer, certificates) = try await capturedPair()
        let key = Stream.PropertyKey.socketSecurityLevelKey
        #expect(streams.input.setProperty(StreamSocketSecurityLevel.none, forKey: key), "no security: nothing to do")
        #expect(streams.input.property(forKey: key) == nil)
        #expect(!streams.input.setProperty("kCFStreamSocketSecurityLevelBogus" as NSString, forKey: key))
        #expect(!streams.input.setProperty(nil, forKey: key))
        #expect(!streams.input.setProperty(Self.level, forKey: .socksProxyConfigurationKey))
        #expect(streams.input.property(forKey: key) == nil)
        #expect(streams.output.setProperty(StreamSocketSecurityLevel.tlSv1, forKey: key))
        #expect(!streams.output.setProperty(StreamSocketSecurityLevel.none, forKey: key), "TLS is not taken back")
        #expect(streams.input.property(forKey: key) as? String == StreamSocketSecurityLevel.tlSv1.rawValue)
        async let serverSide: Void = peer.startTLS(asServerWith: try certificates.serverConfiguration(), timeout: 10)
        let ready = await offCooperativePool {
            streams.input.open()
            streams.output.open()
            return streams.output.write(Array("hi\r\n".utf8), maxLength: 4)
        }
        try await serverSide
        #expect(ready == 4)
        #expect(try await peer.readLine() == "hi\r\n")
        streams.input.close()
        streams.output.close()
        await server.stop()
    }

    @Test func aFailedUpgradeFailsBothStreamsAndSendsNothingInTheClear() async throws {
        let (server, streams, peer, _) = try await capturedPair()
        await offCooperativePool {
            streams.input.open()
            streams.output.open()
        }
        #expect(streams.output.setProperty(Self.level, forKey: .socketSecurityLevelKey))
        // The peer does not speak TLS: it reads the hello and ends the connection.
        let hello = try await peer.readData(ofMinLength: 1, maxLength: 4096, timeout: 10).0
        #expect((hello?.first).map { $0 == 0x16 } == true, "a TLS handshake record")
        peer.closeWrite()
        let written = await offCooperativePool { streams.output.write(Array("secret\r\n".utf8), maxLength: 8) }
        #expect(written == -1)
        let read = await offCooperativePool { streams.readLine() }
        #expect(read == nil)
        for stream in [streams.input, streams.output] as [Stream] {
            #expect(stream.streamStatus == .error)
            #expect(stream.streamError is StreamTaskError, "\(String(describing: stream.streamError))")
        }
        #expect(!streams.output.setProperty(Self.level, forKey: .socketSecurityLevelKey), "failed: nothing taken")
        // Nothing after the hello reached the peer.
        let rest = try? await peer.readData(ofMinLength: 1, maxLength: 4096, timeout: 10)
        #expect(rest?.0.map { String(decoding: $0, as: UTF8.self).contains("secret") } != true)
        await server.stop()
    }
}

extension UncheckedStreams {
    /// Reads up to and including the next `\n` (blocking); `nil` at a failure or the end.
    func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while input.read(&byte, maxLength: 1) == 1 {
            line.append(byte)
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        }
        return nil
    }
}
