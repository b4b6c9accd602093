import NIOSSL

/// What a task knows about the TLS handshake under way (or last done), on its event loop.
struct TLSProgress {
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
    /// Whether this task's TLS handler is in the pipeline.
    var isActive = false
    /// Whether the peer ended TLS with `close_notify`: the end of the transport that follows
    /// is then an orderly one, not a truncation.
    var peerEndedTLS = false
    /// Whether the handshake of ``handler`` is done (TLS is in use, and no transition waits).
    var isEstablished: Bool { isActive && transition == nil }
    /// This task's TLS handler (not the one of a tunnel through an HTTPS proxy).
    var handler: NIOSSLHandler?
}
