//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOSSL

extension StreamTaskDriver {
    // MARK: Carrying out the machine's decisions (on the event loop)

    func beginTLS(_ id: OperationID, role: TLSRole, early: ByteBuffer?) {
        guard let handler, let context = handler.context else {
            step { $0.tlsTransitionCompleted(id, error: .connectionIsClosed) }
            return
        }
        let configuration = role.configuration
        do {
            let (ssl, observer) = try prepareTLS(
                role: role, peerName: role.isServer ? nil : role.peerName ?? host, transition: id, isActive: true)
            let transport = TransportInputObserver {
                self.transportInputEnded()
            }
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(ssl, position: .before(handler))
            try pipeline.addHandler(ReadPassCloseGuard(), name: Self.tlsCloseGuardName, position: .before(ssl))
            try pipeline.addHandler(transport, position: .before(ssl))
            try pipeline.addHandler(observer, position: .before(ssl))
            if let early {
                // The start of the client's handshake, read before TLS was in place: it enters
                // the pipeline again from the socket's end.
                pipeline.fireChannelRead(NIOAny(early))
                pipeline.fireChannelReadComplete()
            }
        } catch {
            _ = withMachine { $0.tlsHandshakeEnded() }
            let failure = TLSErrorMapper.map(error, verification: nil, configuration: configuration)
            step { $0.tlsTransitionCompleted(id, error: failure) }
        }
    }

    /// The task's own TLS for `role`: a handler whose verdict on the peer, and a handshake
    /// observer whose cipher suite, go to the machine's record of the handshake for
    /// `transition` (the operation waiting for it). Marks the start of the handshake in the
    /// metrics. `isActive`: the task's stream is inside this TLS (not while a data task's
    /// exchange runs on it).
    package func prepareTLS(
        role: TLSRole,
        peerName: String?,
        transition: OperationID,
        isActive: Bool,
        reportedAs reported: StreamSessionTask? = nil
    ) throws -> (ssl: NIOSSLHandler, observer: any ChannelHandler) {
        var role = role
        if case .client(let configuration, _) = role, let peerName {
            role = .client(underTransportSecurity(configuration, host: peerName), peerName: peerName)
        }
        // The task's own TLS as a client asks its delegate about the server's chain (a data
        // task's TLS, the data task's delegate).
        let ssl = try makeTLSHandler(
            role: role, peerName: peerName, asksDelegate: !role.isServer, reportedAs: reported
        ) { chain, failure in
            self.withMachine { $0.tlsPeerPresented(chain, failure: failure) }
        }
        let observer = TLSHandshakeObserver(isServer: role.isServer) { suite in
            self.withMachine { $0.tlsCipherSuiteSeen(suite) }
        }
        tlsHandler = ssl
        withMachine { $0.tlsHandshakeBegan(transition, role: role, carriesStream: isActive) }
        owner?.withShared { $0.metrics.secureConnectionStartDate = Date() }
        return (ssl, observer)
    }

    /// `configuration` for a client handshake with `host`, carrying what the session's App
    /// Transport Security requires of it, if it applies there.
    func underTransportSecurity(_ configuration: StreamTLSConfiguration, host: String) -> StreamTLSConfiguration {
        var configuration = configuration
        configuration.transportSecurity = self.configuration.transportSecurity.requirements(forHost: host)
        return configuration
    }

    /// A TLS handler for `role` whose peer ``PeerCertificateVerifier`` checks against
    /// `peerName`. `record` gets, on the event loop, the chain the peer presented and the
    /// verifier's reason for refusing it (`nil` when accepted).
    func makeTLSHandler(
        role: TLSRole,
        peerName: String?,
        asksDelegate: Bool = false,
        reportedAs reported: StreamSessionTask? = nil,
        record: @escaping (_ chain: [TLSCertificate], _ failure: StreamTaskError?) -> Void
    ) throws -> NIOSSLHandler {
        let configuration = role.configuration
        let sslContext: NIOSSLContext
        if asksDelegate, let task = owner, task.tlsDelegate(reportedAs: reported) != nil {
            sslContext = try configuration.clientContext { [weak task, weak reported] _, promise in
                self.answerCertificateRequest(from: task, reportedAs: reported, promise: promise)
            }
        } else {
            sslContext = try configuration.context(isServer: role.isServer)
        }
        let verifier = PeerCertificateVerifier(configuration: configuration, expectedHostname: peerName)
        let verify: NIOSSLCustomVerificationCallback = { certificates, promise in
            // The task whose delegate decides, taken on the loop that owns it.
            let asking = asksDelegate ? self.owner : nil
            self.verifyPeer(
                certificates, with: verifier, asking: asking, reportedAs: reported, record: record, promise: promise)
        }
        if role.isServer {
            return NIOSSLServerHandler(context: sslContext, customVerificationCallback: verify)
        }
        let serverName = peerName.flatMap { PeerCertificateVerifier.isIPAddress($0) ? nil : $0 }
        return try NIOSSLClientHandler(
            context: sslContext, serverHostname: serverName, customVerificationCallback: verify)
    }

    /// SwiftNIO SSL's context callback, when the server asked for a client certificate: the
    /// task's delegate decides what to present. A cancelled challenge fails the handshake, and
    /// the task, with the delegate's reason.
    private func answerCertificateRequest(
        from task: StreamTask?, reportedAs reported: StreamSessionTask?,
        promise: EventLoopPromise<NIOSSLContextConfigurationOverride>
    ) {
        Task {
            let answer = await task?.clientCertificateAnswer(reportedAs: reported) ?? .success(nil)
            self.onLoop {
                switch answer {
                case .success(nil):
                    promise.succeed(.noChanges)
                case .success(let identity?):
                    do {
                        var override = NIOSSLContextConfigurationOverride()
                        override.certificateChain = try identity.certificateChain.map {
                            .certificate(try $0.nioCertificate())
                        }
                        override.privateKey = .privateKey(try identity.privateKey.nioKey())
                        promise.succeed(override)
                    } catch {
                        let failure = StreamTaskError(
                            .tlsConfigurationInvalid, "the client identity cannot be used: \(error)", underlying: error)
                        self.withMachine { $0.tlsHandshakeRefused(failure) }
                        promise.fail(failure)
                    }
                case .failure(let failure):
                    self.withMachine { $0.tlsHandshakeRefused(failure) }
                    promise.fail(failure)
                }
            }
        }
    }

    /// SwiftNIO SSL's verification callback (on the event loop): verifies the chain off the
    /// loop, lets `asking`'s delegate decide if there is one, and answers on the loop once
    /// `record` has the verdict.
    private func verifyPeer(
        _ certificates: [NIOSSLCertificate],
        with verifier: PeerCertificateVerifier,
        asking task: StreamTask?,
        reportedAs reported: StreamSessionTask?,
        record: @escaping ([TLSCertificate], StreamTaskError?) -> Void,
        promise: EventLoopPromise<NIOSSLVerificationResult>
    ) {
        let presented = certificates.compactMap { try? TLSCertificate(verifiedDER: $0.toDERBytes()) }
        let recorder = NIOLoopBound(record, eventLoop: eventLoop)
        Task {
            let checked = await verifier.verify(presented)
            let verdict: StreamTaskError?
            if let task {
                verdict = await task.serverTrustVerdict(
                    chain: presented, defaultFailure: checked, reportedAs: reported)
            } else {
                verdict = checked
            }
            let failure = Self.delegateVerdict(
                verdict, defaultFailure: checked, rules: verifier.configuration.transportSecurity)
            self.onLoop {
                recorder.value(presented, failure)
                promise.succeed(failure == nil ? .certificateVerified : .failed)
            }
        }
    }

    /// A delegate that accepts what default evaluation refused loosens trust: App Transport
    /// Security allows that only with an exception, and never against its own rules.
    private static func delegateVerdict(
        _ verdict: StreamTaskError?, defaultFailure: StreamTaskError?, rules: TransportSecurityRequirements?
    ) -> StreamTaskError? {
        guard verdict == nil, let defaultFailure, let rules else { return verdict }
        if defaultFailure.code.isTransportSecurity { return defaultFailure }
        if rules.allowsInsecureHTTPLoads { return nil }
        return rules.trustRefusal(loosenedBy: "the delegate", refusal: defaultFailure)
    }

    func tlsHandshakeCompleted(applicationProtocol: String?) {
        guard let (id, record) = withMachine({ $0.tlsHandshakeSucceeded() }) else { return }
        let ssl = tlsHandler
        var chain = record.presentedChain
        if chain.isEmpty, let leaf = ssl?.peerCertificate, let der = try? leaf.toDERBytes() {
            chain = [TLSCertificate(verifiedDER: der)]
        }
        let version = ssl?.tlsVersion.map { StreamTLSConfiguration.Version($0).description }
        let suite = record.cipherSuite.map(ServerHelloParser.name(of:))
        owner?.withShared { shared in
            shared.metrics.secureConnectionEndDate = Date()
            shared.metrics.negotiatedTLSVersion = version
            shared.metrics.negotiatedCipherSuite = suite
            shared.metrics.negotiatedApplicationProtocol = applicationProtocol
            shared.metrics.peerCertificateChain = chain
        }
        configuration.logger.debug(
            "TLS established",
            metadata: ["task": "\(taskIdentifier)", "version": "\(version ?? "?")", "cipher": "\(suite ?? "?")"]
        )
        step { $0.tlsTransitionCompleted(id, error: nil) }
    }

    /// A channel error while a handshake is under way ends it; returns whether it was one.
    func tlsHandshakeFailed(_ error: any Error) -> Bool {
        guard let (id, record) = withMachine({ $0.tlsHandshakeEnded() }) else { return false }
        let failure = TLSErrorMapper.map(
            error, verification: record.verificationFailure, configuration: record.role.configuration)
        configuration.logger.debug(
            "TLS handshake failed", metadata: ["task": "\(taskIdentifier)", "error": "\(failure)"])
        step {
            $0.channelFailed(failure)
            return $0.tlsTransitionCompleted(id, error: failure)
        }
        return true
    }

    /// A TLS error after the handshake (TLS 1.3 servers refuse a client certificate only after
    /// the client has finished), described as a TLS failure; `nil` for other errors.
    func tlsFailure(_ error: any Error) -> StreamTaskError? {
        if TLSErrorMapper.isCloseTimeout(error) { return closeNotifyTimedOut }
        let (record, handshakeDone) = withMachine { ($0.tlsRecord, $0.tlsHandshakeDone) }
        guard let record, TLSErrorMapper.isTLSError(error) else { return nil }
        if handshakeDone, TLSErrorMapper.isUncleanShutdown(error) {
            return Self.truncation
        }
        return TLSErrorMapper.map(
            error, verification: record.verificationFailure, configuration: record.role.configuration)
    }

    /// The transport under TLS ended. Without the peer's `close_notify` first, and once the
    /// handshake is done, that is a truncation, not an end of stream (RFC 8446, section 6.1).
    func transportInputEnded() {
        let (failed, truncates) = withMachine { ($0.tlsHandshakeFailed, $0.tlsTransportEndTruncates) }
        // A failed handshake closes the connection with its own error.
        if failed { return }
        if truncates {
            configuration.logger.debug("transport ended without close_notify", metadata: ["task": "\(taskIdentifier)"])
            step { $0.inputEnded(truncation: Self.truncation.at(host: host, port: port)) }
        } else {
            step { $0.inputEnded() }
        }
    }

    package static let truncation = StreamTaskError(
        .tlsTruncated,
        "the peer closed the connection without ending TLS first (no close_notify): what came before is intact, but more may have been cut off"
    )

    /// The name of the ``ReadPassCloseGuard`` in front of this task's own TLS handler.
    private static let tlsCloseGuardName = "stream-task-tls-close-guard"

    func endTLS(_ id: OperationID) {
        // This task's own TLS handler: a tunnel through an HTTPS proxy has another one.
        guard let ssl = tlsHandler, withMachine({ $0.tlsUnwrapBegan(id) }) else {
            let error = StreamTaskError(.tlsNotActive, "the connection is not using TLS")
            step { $0.tlsTransitionCompleted(id, error: error, closesConnection: false) }
            return
        }
        let promise = eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { result in
            switch result {
            case .success:
                self.withMachine { $0.tlsUnwrapEnded(id, succeeded: true) }
                // Back to plaintext: the socket's end of stream reaches the task directly again.
                self.tlsHandler = nil
                if let pipeline = self.handler?.context?.pipeline.syncOperations {
                    if let transport = try? pipeline.handler(type: TransportInputObserver.self) {
                        pipeline.removeHandler(transport, promise: nil)
                    }
                    // By name: a tunnel through an HTTPS proxy has a guard of its own.
                    pipeline.removeHandler(name: Self.tlsCloseGuardName, promise: nil)
                }
                self.step { $0.tlsTransitionCompleted(id, error: nil) }
            case .failure(let error):
                self.withMachine { $0.tlsUnwrapEnded(id, succeeded: false) }
                let failure =
                    TLSErrorMapper.isCloseTimeout(error)
                    ? self.closeNotifyTimedOut
                    : StreamTaskError(
                        .connectionClosed, "TLS could not be stopped cleanly: \(error)", underlying: error)
                self.step { $0.tlsTransitionCompleted(id, error: failure) }
            }
        }
        ssl.stopTLS(promise: promise)
    }

    /// SwiftNIO SSL gave up waiting for the peer's close_notify (the configuration's
    /// `closeNotifyTimeout`); it has left the pipeline, so the close that follows is immediate.
    private var closeNotifyTimedOut: StreamTaskError {
        let seconds = withMachine { $0.tlsRecord }?.role.configuration.closeNotifyTimeout ?? 0
        return TLSErrorMapper.closeNotifyUnanswered(within: seconds, limit: "the close_notify timeout")
            .at(host: host, port: port)
    }

    /// The stop of TLS under way ran out of its own timeout before the peer answered
    /// close_notify: it fails saying so, and the socket closes beneath TLS at once, since
    /// SwiftNIO SSL would hold a close until its own close_notify timeout.
    func stopTLSTimedOut(_ id: OperationID, after seconds: TimeInterval) {
        withMachine { $0.tlsUnwrapEnded(id, succeeded: false) }
        let failure = TLSErrorMapper.closeNotifyUnanswered(within: seconds, limit: "the stop's timeout")
        step { $0.tlsTransitionCompleted(id, error: failure.at(host: host, port: port)) }
        handler?.closeTransport()
    }
}
