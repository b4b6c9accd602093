//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension CapturedConnection {
    /// A stream was asked to set `property` under `key`. Only `socketSecurityLevelKey` is
    /// taken, as Darwin's socket streams take it: a level other than `.none` starts TLS as a
    /// client, with the session's ``StreamSessionConfiguration/tls`` and default trust
    /// evaluation, once the operations before it are done: at once on open streams (an upgrade,
    /// as after a STARTTLS command), or as soon as the connection is up for streams not yet
    /// opened. Both streams share the connection, so asking one is asking both, and asking
    /// again changes nothing.
    ///
    /// Returns whether the value was taken: `false` for other keys, values that name no level,
    /// `.none` once TLS was asked for (TLS cannot be taken back that way), and a connection
    /// that failed. A handshake that fails closes the connection and fails both streams with
    /// its error (`errorOccurred`).
    func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool {
        if key.rawValue == Self.sslSettingsKey { return setSSLSettings(property) }
        guard key == .socketSecurityLevelKey, let level = CapturedTLS.level(of: property), failure == nil else {
            return false
        }
        let wantsTLS = level != StreamSocketSecurityLevel.none.rawValue
        // Whether TLS protects the connection already is asked before this lock: it takes
        // the task's.
        let protected = wantsTLS && isConnected && runsTLS
        // `nil`: TLS is to start.
        let answer = tls.withLockedValue { tls -> Bool? in
            switch tls {
            case .plain where !wantsTLS:
                return true
            case .plain where protected:
                tls = .on(level: level)
                return true
            case .plain:
                tls = .starting(level: level)
                return nil
            case .starting, .on:
                return wantsTLS
            case .failed:
                return false
            }
        }
        if let answer { return answer }
        if !secureBeforeConnecting() { startTLS() }
        return true
    }

    /// CFNetwork's `kCFStreamPropertySSLSettings`.
    static let sslSettingsKey = "kCFStreamPropertySSLSettings"

    /// TLS settings, as Darwin's socket streams take them under `kCFStreamPropertySSLSettings`:
    /// the name to check the server's certificate against (`kCFStreamSSLPeerName`, `NSNull`
    /// for none), whether to check its chain at all (`kCFStreamSSLValidatesCertificateChain`;
    /// the session's App Transport Security still refuses an unchecked chain where it applies),
    /// and the level (`kCFStreamSSLLevel`). Setting them starts TLS, as the level does, and
    /// they hold for it only if set before its handshake is queued: before the streams connect,
    /// or before (or instead of) the level on open streams; later ones are refused (`false`).
    /// Settings the streams cannot honour (TLS's server side, an identity of their own, or a
    /// value that is no dictionary) fail both streams, so that nothing meant to be protected
    /// goes out in the clear.
    private func setSSLSettings(_ property: AnyObject?) -> Bool {
        guard failure == nil else { return false }
        let settings: CapturedSSLSettings
        switch CapturedSSLSettings.parse(property) {
        case .success(let parsed): settings = parsed
        case .failure(let error):
            fail(error)
            return false
        }
        let taken = sslSettings.withLockedValue { stored -> Bool in
            guard !stored.taken else { return false }
            stored.settings = settings
            return true
        }
        guard taken else { return false }
        let level = settings.level ?? StreamSocketSecurityLevel.negotiatedSSL.rawValue
        return setProperty(NSString(string: level), forKey: .socketSecurityLevelKey)
    }

    /// The role TLS starts in: the session's configuration with the SSL settings applied, which
    /// from now on are final.
    func clientRole() -> TLSRole {
        let settings = sslSettings.withLockedValue { stored in
            stored.taken = true
            return stored.settings
        }
        return settings.clientRole(from: task.configuration.tls)
    }

    /// Fails both streams with `error` and ends the connection.
    private func fail(_ error: StreamTaskError) {
        tls.withLockedValue { tls in
            if case .failed = tls { return }
            tls = .failed(level: tls.level ?? StreamSocketSecurityLevel.negotiatedSSL.rawValue, error)
        }
        // Before the streams have the connection, cancelling the task stops it; after, the
        // streams own it, and close it themselves (queued behind the capture if it is under way).
        task.cancel()
        closeWrite()
        closeRead()
        tellStreams(failed: error)
    }

    /// Tells both streams the connection failed with `error`: the input's reader finds it, and
    /// the output's delegate hears `errorOccurred`.
    private func tellStreams(failed error: StreamTaskError) {
        let (readAhead, outputEvents) = parts.withLockedValue { ($0.readAhead, $0.outputEvents) }
        readAhead?.fail(error)
        outputEvents?.post(.errorOccurred)
    }

    /// The value of `key`: the security level asked for (its raw value), if any.
    func property(forKey key: Stream.PropertyKey) -> AnyObject? {
        guard key == .socketSecurityLevelKey, let level = tls.withLockedValue({ $0.level }) else { return nil }
        return NSString(string: level)
    }

    /// Whether TLS was asked for and its handshake has not completed: the output stream has
    /// no space until it has.
    var isStartingTLS: Bool {
        tls.withLockedValue { $0.isStarting }
    }

    /// Stops the read-ahead (TLS waits for every read before it), queues the handshake behind
    /// what the streams queued, and tells the streams its outcome.
    private func startTLS() {
        parts.withLockedValue { $0.readAhead }?.hold()
        submit(.startTLS(clientRole()), timeout: tlsHandshakeTimeout) { [weak self] result in
            self?.tlsStarted(result)
        }
    }

    /// On the task's event loop: the outcome of the handshake started on open streams.
    private func tlsStarted(_ result: Result<StreamTask.Outcome, StreamTaskError>) {
        let error = result.failure
        tlsCompleted(error)
        if let error { return tellStreams(failed: error) }
        let (readAhead, outputEvents) = parts.withLockedValue { ($0.readAhead, $0.outputEvents) }
        readAhead?.release()
        outputEvents?.post(.hasSpaceAvailable)
    }

    /// Records the handshake's outcome: TLS is on, or failed with `error`.
    func tlsCompleted(_ error: StreamTaskError?) {
        tls.withLockedValue { tls in
            guard case .starting(let level) = tls else { return }
            tls = error.map { .failed(level: level, $0) } ?? .on(level: level)
        }
    }

    /// Whether TLS protects the connection now, as the task's machine knows.
    private var runsTLS: Bool {
        task.driver.withMachine { $0.tlsEstablished }
    }
}
