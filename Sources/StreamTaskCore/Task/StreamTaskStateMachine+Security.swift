//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskStateMachine {
    /// The task's own TLS, as one value: what exists in one phase only is carried by that
    /// phase. The operations `startTLS` and `stopTLS` are barriers in the queue; this is what
    /// the handshake learns meanwhile, and what the stream is inside afterwards.
    ///
    /// "Own": a tunnel through an HTTPS proxy has TLS of its own to the proxy, which the task's
    /// stream does not see.
    enum Security: Sendable {
        /// No TLS of the task's (never started, or stopped).
        case plaintext
        /// The handshake for the operation (or a data task's exchange) with this id is under
        /// way.
        case handshaking(OperationID, TLSHandshakeRecord)
        /// The handshake is done. `peerEnded`: the peer sent close_notify, so the end of the
        /// transport that follows is an orderly one, not a truncation.
        case established(TLSHandshakeRecord, peerEnded: Bool)
        /// `stopTLS` (the operation with this id) waits for the peer's close_notify;
        /// `peerEnded` once it came.
        case unwrapping(OperationID, TLSHandshakeRecord, peerEnded: Bool)
        /// The handshake failed; the connection closes.
        case failed(TLSHandshakeRecord)
    }

    /// What a handshake knows: its role, and what it learnt of the peer.
    struct TLSHandshakeRecord: Sendable {
        /// The role and configuration of the handshake.
        let role: TLSRole
        /// Whether the task's stream is inside this TLS: not while a data task's exchange runs
        /// on it.
        let carriesStream: Bool
        /// Why the verifier (or the delegate) refused the peer, if it did.
        var verificationFailure: StreamTaskError?
        /// The chain the peer presented, leaf first.
        var presentedChain: [TLSCertificate] = []
        /// The cipher suite read off the ServerHello.
        var cipherSuite: UInt16?
    }

    // MARK: What the handshake tells

    /// A handshake for `transition` begins in `role`.
    mutating func tlsHandshakeBegan(_ transition: OperationID, role: TLSRole, carriesStream: Bool) {
        switch security {
        case .handshaking, .unwrapping:
            preconditionFailure("a TLS handshake began while another TLS transition was under way")
        case .plaintext, .established, .failed:
            security = .handshaking(transition, TLSHandshakeRecord(role: role, carriesStream: carriesStream))
        }
    }

    /// The peer presented `chain`; `failure` is why it was refused, if it was.
    mutating func tlsPeerPresented(_ chain: [TLSCertificate], failure: StreamTaskError?) {
        updateHandshake {
            $0.presentedChain = chain
            $0.verificationFailure = failure
        }
    }

    /// This side cannot go on with the handshake (no usable client identity, or the delegate
    /// refused): the failure it ends with.
    mutating func tlsHandshakeRefused(_ failure: StreamTaskError) {
        updateHandshake { $0.verificationFailure = failure }
    }

    /// The ServerHello named `suite`.
    mutating func tlsCipherSuiteSeen(_ suite: UInt16) {
        updateHandshake { $0.cipherSuite = suite }
    }

    private mutating func updateHandshake(_ update: (inout TLSHandshakeRecord) -> Void) {
        // A callback of a handshake that has ended already (it failed meanwhile) changes
        // nothing.
        guard case .handshaking(let transition, var record) = security else { return }
        update(&record)
        security = .handshaking(transition, record)
    }

    /// The handshake succeeded: returns the operation waiting for it and what it learnt, or
    /// `nil` when none is under way (a late report).
    mutating func tlsHandshakeSucceeded() -> (transition: OperationID, record: TLSHandshakeRecord)? {
        guard case .handshaking(let transition, let record) = security else { return nil }
        security = .established(record, peerEnded: false)
        return (transition, record)
    }

    /// The handshake failed: returns the operation waiting for it and what it learnt, or
    /// `nil` when none is under way.
    mutating func tlsHandshakeEnded() -> (transition: OperationID, record: TLSHandshakeRecord)? {
        guard case .handshaking(let transition, let record) = security else { return nil }
        security = .failed(record)
        return (transition, record)
    }

    /// The peer sent close_notify; returns whether the task's stream was inside TLS (then the
    /// stream goes on until the transport ends, or in plaintext after `stopTLS`).
    mutating func tlsPeerEnded() -> Bool {
        switch security {
        case .established(let record, _) where record.carriesStream:
            security = .established(record, peerEnded: true)
            return true
        case .unwrapping(let id, let record, _) where record.carriesStream:
            security = .unwrapping(id, record, peerEnded: true)
            return true
        case .handshaking(_, let record) where record.carriesStream, .failed(let record) where record.carriesStream:
            return true
        case .plaintext, .established, .handshaking, .unwrapping, .failed:
            return false
        }
    }

    /// `stopTLS` (operation `id`) begins to wait for the peer's close_notify; `false` when the
    /// task's stream is not inside TLS of its own.
    mutating func tlsUnwrapBegan(_ id: OperationID) -> Bool {
        guard case .established(let record, let peerEnded) = security, record.carriesStream else { return false }
        security = .unwrapping(id, record, peerEnded: peerEnded)
        return true
    }

    /// The stop of TLS for `id` ended: with `succeeded`, the stream is plaintext again;
    /// otherwise it stays inside TLS (the connection closes). A stop that ended already (it
    /// timed out) changes nothing.
    mutating func tlsUnwrapEnded(_ id: OperationID, succeeded: Bool) {
        guard case .unwrapping(id, let record, let peerEnded) = security else { return }
        security = succeeded ? .plaintext : .established(record, peerEnded: peerEnded)
    }

    /// This side closes the connection (or the socket beneath TLS).
    mutating func thisSideCloses() {
        closingByThisSide = true
    }

    // MARK: What the driver asks

    /// What the last handshake learnt, unless TLS has been stopped since.
    var tlsRecord: TLSHandshakeRecord? {
        switch security {
        case .plaintext: return nil
        case .handshaking(_, let record), .established(let record, _), .unwrapping(_, let record, _),
            .failed(let record):
            return record
        }
    }

    /// Whether a handshake is done and TLS not stopped since (the stream may not be inside it).
    var tlsHandshakeDone: Bool {
        switch security {
        case .established, .unwrapping: return true
        case .plaintext, .handshaking, .failed: return false
        }
    }

    /// Whether the task's stream is inside TLS whose handshake is done.
    var tlsEstablished: Bool { tlsHandshakeDone && tlsRecord?.carriesStream == true }

    /// The end of the transport beneath TLS: a truncation once the handshake is done, unless
    /// the peer ended TLS first (RFC 8446, section 6.1).
    var tlsTransportEndTruncates: Bool {
        switch security {
        case .established(let record, let peerEnded), .unwrapping(_, let record, let peerEnded):
            return record.carriesStream && !peerEnded
        case .plaintext, .handshaking, .failed:
            return false
        }
    }

    /// Whether the last handshake failed (the connection closes with its error).
    var tlsHandshakeFailed: Bool {
        if case .failed = security { return true }
        return false
    }

    /// The `stopTLS` waiting for the peer's close_notify, if one is.
    var tlsUnwrapping: OperationID? {
        if case .unwrapping(let id, _, _) = security { return id }
        return nil
    }
}
