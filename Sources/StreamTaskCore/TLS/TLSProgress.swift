//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOSSL

/// What a task knows about the TLS handshake under way (or last done), on its event loop.
package struct TLSProgress {
    /// The `startTLS` operation waiting for the handshake.
    var transition: OperationID?
    /// The role and configuration of the current handshake.
    var role: TLSRole?
    /// Why the verifier refused the peer, if it did.
    var verificationFailure: StreamTaskError?
    /// The chain the peer presented, leaf first.
    var presentedChain: [TLSCertificate] = []
    /// The cipher suite read off the ServerHello.
    var cipherSuite: UInt16?
    /// The `stopTLS` operation under way: it waits for the peer's close_notify.
    var unwrapping: OperationID?
    /// Whether this task's TLS handler is in the pipeline.
    var isActive = false
    /// Whether the peer ended TLS with `close_notify`: the end of the transport that follows
    /// is then an orderly one, not a truncation.
    var peerEndedTLS = false
    /// This side is closing the connection: a missing close_notify from the peer is then no
    /// truncation, since this side may close the socket beneath TLS without waiting for it.
    package var closingByThisSide = false
    /// Whether the handshake of ``handler`` is done.
    var handshakeDone: Bool { handler != nil && transition == nil }
    /// Whether the task's own stream is protected by a handshake that is done (a data task's
    /// TLS is not the task's until it becomes a stream).
    var isEstablished: Bool { isActive && handshakeDone }
    /// This task's TLS handler (not the one of a tunnel through an HTTPS proxy).
    var handler: NIOSSLHandler?
}
