//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import StreamTaskCore

/// The task's own TLS as the machine holds it (``StreamTaskStateMachine/Security``), driven as
/// a value: what a handshake learns, when the end of the transport is a truncation, and how
/// `stopTLS` leaves it.
@Suite struct StreamTaskStateMachineSecurityTests {
    typealias Machine = StreamTaskStateMachine

    private static func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }
    private static let client = TLSRole.client(StreamTLSConfiguration())
    private static let refusal = StreamTaskError(.tlsHandshakeFailed, "refused")

    private static func established(carriesStream: Bool = true) -> Machine {
        var machine = Machine.startedForTests()
        machine.tlsHandshakeBegan(id(1), role: client, carriesStream: carriesStream)
        _ = machine.tlsHandshakeSucceeded()
        return machine
    }

    @Test func aHandshakeKeepsWhatItLearnsUntilItSucceeds() throws {
        var machine = Machine.startedForTests()
        #expect(machine.tlsRecord == nil)
        machine.tlsHandshakeBegan(Self.id(7), role: Self.client, carriesStream: true)
        #expect(machine.tlsRecord?.carriesStream == true)
        #expect(!machine.tlsHandshakeDone)
        #expect(!machine.tlsEstablished)
        let leaf = TLSCertificate(verifiedDER: [0x30, 0x00])
        machine.tlsPeerPresented([leaf], failure: nil)
        machine.tlsCipherSuiteSeen(0x1301)
        let succeeded = machine.tlsHandshakeSucceeded()
        let (transition, record) = try #require(succeeded)
        #expect(transition == Self.id(7))
        #expect(record.presentedChain == [leaf])
        #expect(record.cipherSuite == 0x1301)
        #expect(record.verificationFailure == nil)
        #expect(machine.tlsEstablished)
        // Reported twice, the second report finds no handshake under way.
        let secondReport = machine.tlsHandshakeSucceeded()
        #expect(secondReport == nil)
    }

    @Test func aFailedHandshakeKeepsItsReasonAndIgnoresLateCallbacks() throws {
        var machine = Machine.startedForTests()
        machine.tlsHandshakeBegan(Self.id(2), role: Self.client, carriesStream: true)
        machine.tlsHandshakeRefused(Self.refusal)
        let ended = machine.tlsHandshakeEnded()
        let (transition, record) = try #require(ended)
        #expect(transition == Self.id(2))
        #expect(record.verificationFailure?.code == .tlsHandshakeFailed)
        #expect(machine.tlsHandshakeFailed)
        // A verdict that arrives after the failure changes nothing.
        machine.tlsPeerPresented([TLSCertificate(verifiedDER: [0x30, 0x00])], failure: nil)
        #expect(machine.tlsRecord?.presentedChain == [])
        let secondReport = machine.tlsHandshakeSucceeded()
        #expect(secondReport == nil)
        // The connection closes with the handshake's error: the end of the transport is
        // neither a truncation nor the stream's end.
        #expect(!machine.tlsTransportEndTruncates)
        let endedInsideTLS = machine.tlsPeerEnded()
        #expect(endedInsideTLS)
        #expect(!machine.tlsEstablished)
    }

    @Test func theTransportsEndTruncatesUnlessThePeerEndedTLSFirst() {
        var machine = Self.established()
        #expect(machine.tlsTransportEndTruncates)
        let endedInsideTLS = machine.tlsPeerEnded()
        #expect(endedInsideTLS)
        #expect(!machine.tlsTransportEndTruncates)
        #expect(machine.tlsEstablished)
    }

    @Test func aDataTasksTLSIsNotTheStreamsUntilItsOwn() {
        var machine = Self.established(carriesStream: false)
        #expect(machine.tlsHandshakeDone)
        #expect(!machine.tlsEstablished)
        #expect(!machine.tlsTransportEndTruncates)
        // Its close_notify ends the exchange, not a stream inside TLS.
        let endedInsideTLS = machine.tlsPeerEnded()
        #expect(!endedInsideTLS)
        let stopped = machine.tlsUnwrapBegan(Self.id(3))
        #expect(!stopped)
        #expect(machine.tlsUnwrapping == nil)
    }

    @Test func aStopLeavesPlaintextOrKeepsTLSWhenItFails() {
        var machine = Self.established()
        let stopBegan = machine.tlsUnwrapBegan(Self.id(4))
        #expect(stopBegan)
        #expect(machine.tlsUnwrapping == Self.id(4))
        // The peer's close_notify while the stop waits: the transport's end is orderly.
        let endedInsideTLS = machine.tlsPeerEnded()
        #expect(endedInsideTLS)
        #expect(!machine.tlsTransportEndTruncates)
        machine.tlsUnwrapEnded(Self.id(4), succeeded: false)
        #expect(machine.tlsUnwrapping == nil)
        #expect(machine.tlsEstablished)
        #expect(!machine.tlsTransportEndTruncates)

        let stoppedAgain = machine.tlsUnwrapBegan(Self.id(5))
        #expect(stoppedAgain)
        // Another id's end (a stop that timed out already) changes nothing.
        machine.tlsUnwrapEnded(Self.id(4), succeeded: true)
        #expect(machine.tlsUnwrapping == Self.id(5))
        machine.tlsUnwrapEnded(Self.id(5), succeeded: true)
        #expect(machine.tlsRecord == nil)
        #expect(!machine.tlsEstablished)
        let endedAfterStop = machine.tlsPeerEnded()
        #expect(!endedAfterStop)
        let stoppedOnceMore = machine.tlsUnwrapBegan(Self.id(6))
        #expect(!stoppedOnceMore)
    }

    @Test func aPlaintextStreamCannotStopTLS() {
        var machine = Machine.startedForTests()
        let stopped = machine.tlsUnwrapBegan(Self.id(1))
        #expect(!stopped)
        let endedInsideTLS = machine.tlsPeerEnded()
        #expect(!endedInsideTLS)
        #expect(!machine.tlsTransportEndTruncates)
    }

    @Test func aHandshakeCannotBeginWhileAnotherIsUnderWay() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine.startedForTests()
            machine.tlsHandshakeBegan(Self.id(1), role: Self.client, carriesStream: true)
            machine.tlsHandshakeBegan(Self.id(2), role: Self.client, carriesStream: true)
        }
    }

    @Test func aHandshakeCannotBeginWhileTLSIsBeingStopped() async {
        await #expect(processExitsWith: .failure) {
            var machine = Self.established()
            _ = machine.tlsUnwrapBegan(Self.id(2))
            machine.tlsHandshakeBegan(Self.id(3), role: Self.client, carriesStream: true)
        }
    }

    @Test func aNewHandshakeAfterAStopStartsAFreshRecord() throws {
        var machine = Self.established()
        machine.tlsCipherSuiteSeen(0x1302)  // after the handshake: ignored
        _ = machine.tlsUnwrapBegan(Self.id(2))
        machine.tlsUnwrapEnded(Self.id(2), succeeded: true)
        machine.tlsHandshakeBegan(Self.id(3), role: .server(StreamTLSConfiguration()), carriesStream: true)
        let record = try #require(machine.tlsRecord)
        #expect(record.role.isServer)
        #expect(record.cipherSuite == nil)
        #expect(machine.tlsUnwrapping == nil)
    }
}
