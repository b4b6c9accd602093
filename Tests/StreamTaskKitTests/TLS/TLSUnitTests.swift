//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// The TLS barrier rules of the operation queue, the ServerHello parser and pins, as values.
@Suite struct TLSUnitTests {
    private func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    private func started(_ actions: StreamTaskStateMachine.Actions) -> [(UInt64, ByteBuffer?)] {
        actions.compactMap {
            if case .startTLS(let id, _, let early) = $0 { return (id.rawValue, early) }
            return nil
        }
    }

    private func failed(_ actions: StreamTaskStateMachine.Actions) -> [(UInt64, StreamTaskError.Code)] {
        actions.compactMap {
            if case .fail(let id, let error, _) = $0 { return (id.rawValue, error.code) }
            return nil
        }
    }

    private func reads(_ actions: StreamTaskStateMachine.Actions) -> [String] {
        actions.compactMap {
            if case .succeedRead(_, let buffer, _, _) = $0 { return String(buffer: buffer) }
            return nil
        }
    }

    private func openQueue() -> StreamTaskStateMachine {
        var queue = StreamTaskStateMachine.startedForTests()
        _ = queue.connected()
        return queue
    }

    private let client = TLSRole.client(StreamTLSConfiguration())
    private let server = TLSRole.server(StreamTLSConfiguration())

    @Test func startTLSWaitsForEarlierReadsAndWritesAndHoldsBackLaterOnes() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 4, maxLength: 4), id: id(1))
        _ = queue.enqueue(.write(ByteBuffer(string: "STARTTLS")), id: id(2))
        #expect(started(queue.enqueue(.startTLS(client), id: id(3))).isEmpty)
        // Issued after the upgrade: must wait for it even though the lanes are free.
        let later = queue.enqueue(.write(ByteBuffer(string: "secret")), id: id(4))
        #expect(!later.contains { if case .write(let id, _, _) = $0 { return id == self.id(4) } else { return false } })
        _ = queue.writesCompleted(through: id(2), error: nil).actions
        #expect(started(queue.receivedPass(ByteBuffer(string: "220 "))).map(\.0) == [3])
        let done = queue.tlsTransitionCompleted(id(3), error: nil)
        #expect(done.contains { if case .write(let id, _, _) = $0 { return id == self.id(4) } else { return false } })
    }

    @Test func aClientRefusesBytesBufferedWhenTheUpgradeStarts() {
        var queue = openQueue()
        _ = queue.receivedPass(ByteBuffer(string: "injected"))
        let actions = queue.enqueue(.startTLS(client), id: id(1))
        #expect(failed(actions).map(\.1) == [.tlsPlaintextInjection])
        #expect(actions.contains { if case .close = $0 { return true } else { return false } })
        #expect(queue.bufferedByteCount == 0)
    }

    @Test func aServerPassesAnEarlyClientHelloToTheHandshake() {
        var queue = openQueue()
        var hello = ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x05])
        hello.writeString("hello")
        _ = queue.receivedPass(hello)
        let early = started(queue.enqueue(.startTLS(server), id: id(1)))
        #expect(early.map(\.0) == [1])
        #expect(early.first?.1 == hello)
        #expect(queue.bufferedByteCount == 0)
    }

    @Test func aServerRefusesBufferedPlaintext() {
        var queue = openQueue()
        _ = queue.receivedPass(ByteBuffer(string: "RCPT TO:<x>\r\n"))
        #expect(failed(queue.enqueue(.startTLS(server), id: id(1))).map(\.1) == [.tlsPlaintextInjection])
    }

    @Test func aFailedHandshakeFailsEverythingBehindIt() {
        var queue = openQueue()
        _ = queue.enqueue(.startTLS(client), id: id(1))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 1), id: id(2))
        let failure = StreamTaskError(.tlsUntrustedCertificate, "test")
        let actions = queue.tlsTransitionCompleted(id(1), error: failure)
        #expect(failed(actions).map(\.0) == [1, 2])
        #expect(failed(actions).allSatisfy { $0.1 == .tlsUntrustedCertificate })
    }

    @Test func stopTLSWithoutTLSFailsAloneAndTheQueueGoesOn() {
        var queue = openQueue()
        _ = queue.enqueue(.stopTLS, id: id(1))
        _ = queue.enqueue(.write(ByteBuffer(string: "x")), id: id(2))
        let actions = queue.tlsTransitionCompleted(
            id(1), error: StreamTaskError(.tlsNotActive, "test"), closesConnection: false)
        #expect(failed(actions).map(\.0) == [1])
        #expect(
            actions.contains { if case .write(let id, _, _) = $0 { return id == self.id(2) } else { return false } })
    }

    @Test func plaintextLeftBehindByStopTLSReachesTheReadQueuedAfterIt() {
        var queue = openQueue()
        _ = queue.enqueue(.stopTLS, id: id(1))
        #expect(reads(queue.enqueue(.read(minLength: 1, maxLength: 16), id: id(2))).isEmpty)
        // The TLS handler hands on the plaintext that followed the peer's close_notify as it
        // leaves: bytes with no read pass's end after them.
        _ = queue.received(ByteBuffer(string: "plain"))
        let done = queue.tlsTransitionCompleted(id(1), error: nil)
        #expect(reads(done) == ["plain"])
    }

    /// A TLS 1.2-style ServerHello record choosing `suite`, split wherever the test likes.
    private func serverHello(suite: UInt16, sessionID: [UInt8] = [1, 2, 3]) -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + Array(repeating: 0xAB, count: 32)
        body += [UInt8(sessionID.count)] + sessionID
        body += [UInt8(suite >> 8), UInt8(suite & 0xFF), 0x00]
        let handshake: [UInt8] = [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [0x16, 0x03, 0x03, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake
    }

    @Test func theParserFindsTheCipherSuiteAcrossReads() {
        var parser = ServerHelloParser()
        let bytes = serverHello(suite: 0x1302)
        #expect(parser.feed(ByteBuffer(bytes: bytes[0..<7])) == .needMoreBytes)
        #expect(parser.feed(ByteBuffer(bytes: bytes[7...])) == .cipherSuite(0x1302))
        #expect(ServerHelloParser.name(of: 0x1302) == "TLS_AES_256_GCM_SHA384")
        #expect(ServerHelloParser.name(of: 0x00FF) == "0x00FF")
    }

    @Test func theParserGivesUpOnAnythingElse() {
        var alert = ServerHelloParser()
        #expect(alert.feed(ByteBuffer(bytes: [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46])) == .gaveUp)
        var endless = ServerHelloParser(limit: 64)
        #expect(
            endless.feed(ByteBuffer(bytes: [0x16, 0x03, 0x03, 0xFF, 0xFF] + Array(repeating: 0, count: 100))) == .gaveUp
        )
    }

    @Test func contextsAreBuiltOncePerConfigurationAndRole() async throws {
        let certificates = try await TestCertificates.get()
        let server = try certificates.serverConfiguration()
        let first = try server.context(isServer: true)
        #expect(try server.context(isServer: true) === first)
        #expect(try certificates.serverConfiguration().context(isServer: true) === first, "an equal value shares it")
        var other = server
        other.minimumVersion = .tls1_3
        #expect(try other.context(isServer: true) !== first)
        #expect(try server.context(isServer: false) !== first)
    }

    @Test func pinsParseTheFormOpenSSLPrints() throws {
        let hex = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        let pin = try #require(TLSPin.certificateSHA256(hex: hex))
        #expect(pin.sha256 == Array(0..<32))
        #expect(TLSPin.certificateSHA256(hex: "zz") == nil)
        #expect(TLSPin.certificateSHA256(hex: String(hex.dropLast(3))) == nil)
    }
}
