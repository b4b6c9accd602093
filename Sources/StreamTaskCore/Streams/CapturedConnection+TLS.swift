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
        guard key == .socketSecurityLevelKey, let level = CapturedTLS.level(of: property), failure == nil else {
            return false
        }
        let wantsTLS = level != StreamSocketSecurityLevel.none.rawValue
        // Whether TLS protects the connection already is asked before the lock: it may wait
        // for the event loop.
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
        submit(.startTLS(.client(task.configuration.tls))) { [weak self] result in
            self?.tlsStarted(result)
        }
    }

    /// On the task's event loop: the outcome of the handshake started on open streams.
    private func tlsStarted(_ result: Result<StreamTask.Outcome, StreamTaskError>) {
        let error = result.failure
        tlsCompleted(error)
        let (readAhead, outputEvents) = parts.withLockedValue { ($0.readAhead, $0.outputEvents) }
        if let error {
            readAhead?.fail(error)
            outputEvents?.post(.errorOccurred)
        } else {
            readAhead?.release()
            outputEvents?.post(.hasSpaceAvailable)
        }
    }

    /// Records the handshake's outcome: TLS is on, or failed with `error`.
    func tlsCompleted(_ error: StreamTaskError?) {
        tls.withLockedValue { tls in
            guard case .starting(let level) = tls else { return }
            tls = error.map { .failed(level: level, $0) } ?? .on(level: level)
        }
    }

    /// Whether TLS protects the connection now, as the task's event loop knows.
    private var runsTLS: Bool {
        let task = self.task
        if task.eventLoop.inEventLoop { return task.driver.tls.isEstablished }
        return (try? task.eventLoop.submit { task.driver.tls.isEstablished }.wait()) ?? false
    }
}
