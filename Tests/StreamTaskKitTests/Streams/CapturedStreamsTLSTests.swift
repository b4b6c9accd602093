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
    private func capturedPair(
        transportSecurity: StreamTransportSecurity? = nil, timeoutIntervalForRequest: TimeInterval? = nil
    ) async throws -> (LoopbackServer, UncheckedStreams, StreamTask, TestCertificates) {
        let certificates = try await TestCertificates.get()
        let configuration = StreamSession.Configuration(tls: try certificates.clientConfiguration())
        if let transportSecurity { configuration.transportSecurity = transportSecurity }
        if let timeoutIntervalForRequest { configuration.timeoutIntervalForRequest = timeoutIntervalForRequest }
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        let (input, output) = try await client.captureFoundationStreams(timeout: 10)
        return (server, UncheckedStreams(input: input, output: output), peer, certificates)
    }

    /// A captured pair for other suites: the listener, the streams, and the accepted peer.
    static func pair(
        transportSecurity: StreamTransportSecurity? = nil
    ) async throws -> (server: LoopbackServer, streams: UncheckedStreams, peer: StreamTask) {
        let (server, streams, peer, _) = try await CapturedStreamsTLSTests().capturedPair(
            transportSecurity: transportSecurity)
        return (server, streams, peer)
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

    /// A peer that takes the connection and never answers the handshake: the streams fail
    /// once the session's request timeout has passed, rather than wait with the connection.
    @Test func aHandshakeNobodyAnswersTimesOut() async throws {
        let (server, streams, _, _) = try await capturedPair(timeoutIntervalForRequest: 1)
        await offCooperativePool {
            streams.input.open()
            streams.output.open()
        }
        #expect(streams.output.setProperty(Self.level, forKey: .socketSecurityLevelKey))
        let written = await offCooperativePool { streams.output.write(Array("waits\n".utf8), maxLength: 6) }
        #expect(written == -1)
        let error = streams.output.streamError as? StreamTaskError
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(streams.input.streamStatus == .error)
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

/// TLS settings under `kCFStreamPropertySSLSettings`, as Darwin programs give their socket
/// streams: the peer's name, an unchecked chain, and what captured streams cannot take.
@Suite(.timeLimit(.minutes(1))) struct CapturedStreamsSSLSettingsTests {
    private static let key = Stream.PropertyKey(kCFStreamPropertySSLSettings)

    /// Upgrades `streams` with `settings` while `peer` answers with `certificate`; the upgrade's
    /// error, if any, and what the streams then carried.
    private func upgrade(
        _ streams: UncheckedStreams, peer: StreamTask, settings: [String: Any], certificate: String,
        key: String? = nil
    ) async throws -> (taken: Bool, error: StreamTaskError?, echoed: String?) {
        let certificates = try await TestCertificates.get()
        await offCooperativePool {
            streams.input.open()
            streams.output.open()
        }
        let taken = streams.output.setProperty(settings, forKey: Self.key)
        async let serverSide: Void = peer.startTLS(
            asServerWith: try certificates.serverConfiguration(certificate: certificate, key: key), timeout: 10)
        let written = await offCooperativePool { streams.output.write(Array("over TLS\n".utf8), maxLength: 9) }
        _ = try? await serverSide
        guard written == 9 else { return (taken, streams.output.streamError as? StreamTaskError, nil) }
        let line = try await peer.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
        return (taken, nil, line.map { String(decoding: $0, as: UTF8.self) })
    }

    @Test func thePeerNameIsWhatTheCertificateMustName() async throws {
        let certificates = try await TestCertificates.get()
        let named = try await CapturedStreamsTLSTests.pair()
        let result = try await upgrade(
            named.streams, peer: named.peer, settings: [kCFStreamSSLPeerName: "other.example"],
            certificate: certificates.otherNamePEM)
        #expect(result.taken, "the settings alone start TLS")
        #expect(result.error == nil && result.echoed == "over TLS\n", "\(String(describing: result.error))")
        #expect(
            named.streams.output.property(forKey: .socketSecurityLevelKey) as? String
                == StreamSocketSecurityLevel.negotiatedSSL.rawValue)
        await named.server.stop()

        let misnamed = try await CapturedStreamsTLSTests.pair()
        let refused = try await upgrade(
            misnamed.streams, peer: misnamed.peer, settings: [kCFStreamSSLPeerName: "wrong.example"],
            certificate: certificates.otherNamePEM)
        #expect(refused.error?.code == .tlsHostnameMismatch, "\(String(describing: refused.error))")
        await misnamed.server.stop()
    }

    @Test func anUncheckedChainIsTakenOnlyWhereTransportSecurityAllowsIt() async throws {
        let certificates = try await TestCertificates.get()
        let settings: [String: Any] = [kCFStreamSSLValidatesCertificateChain: NSNumber(value: false)]
        // ATS applies to 127.0.0.1 by default, and refuses a chain nobody checked.
        let strict = try await CapturedStreamsTLSTests.pair()
        let refused = try await upgrade(
            strict.streams, peer: strict.peer, settings: settings, certificate: certificates.selfSignedPEM,
            key: certificates.selfSignedKey)
        #expect(refused.error?.code == .transportSecurityTrust, "\(String(describing: refused.error))")
        await strict.server.stop()

        let excepted = try await CapturedStreamsTLSTests.pair(transportSecurity: .insecureLoopback)
        let result = try await upgrade(
            excepted.streams, peer: excepted.peer, settings: settings, certificate: certificates.selfSignedPEM,
            key: certificates.selfSignedKey)
        #expect(result.error == nil && result.echoed == "over TLS\n", "\(String(describing: result.error))")
        await excepted.server.stop()
    }

    @Test func settingsTheStreamsCannotHonourFailThemAndLateOnesAreRefused() async throws {
        let server = try await CapturedStreamsTLSTests.pair()
        await offCooperativePool {
            server.streams.input.open()
            server.streams.output.open()
        }
        #expect(!server.streams.input.setProperty([kCFStreamSSLIsServer: true], forKey: Self.key))
        for stream in [server.streams.input, server.streams.output] as [Stream] {
            #expect((stream.streamError as? StreamTaskError)?.code == .invalidArgument)
        }
        await server.server.stop()

        let late = try await CapturedStreamsTLSTests.pair()
        #expect(
            late.streams.output.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey))
        #expect(
            !late.streams.output.setProperty([kCFStreamSSLPeerName: "other.example"], forKey: Self.key),
            "TLS has started with the settings it had")
        #expect(!late.streams.output.setProperty("not a dictionary", forKey: Self.key))
        await late.server.stop()
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
