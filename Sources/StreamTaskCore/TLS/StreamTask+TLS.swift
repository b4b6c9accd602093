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

extension StreamTask {
    // MARK: URLSessionStreamTask's forms

    /// Upgrades the connection to TLS as a client, with the session's
    /// ``StreamSessionConfiguration/tls``, once every queued read and write has completed.
    /// Operations issued after this call wait for the handshake and then run protected.
    ///
    /// If the handshake fails, the connection closes and the operations after it fail with the
    /// reason (untrusted certificate, host name mismatch, …). Unread bytes that arrived before
    /// the handshake began make the upgrade fail with
    /// ``StreamTaskError/Code/tlsPlaintextInjection``: they came in plaintext and are never handed
    /// out as if protected.
    public func startSecureConnection() {
        submit(.startTLS(.client(configuration.tls)), timeout: 0) { _ in }
    }

    /// Upgrades the connection to TLS as a server (for a task accepted by a listener), once
    /// every queued read and write has completed. See ``startSecureConnection()``.
    public func startSecureConnection(asServerWith configuration: StreamTLSConfiguration) {
        submit(.startTLS(.server(configuration)), timeout: 0) { _ in }
    }

    /// Once every queued read and write has completed, sends TLS close_notify, waits for the
    /// peer's, and goes on in plaintext. Bytes the peer sent after its close_notify are kept.
    public func stopSecureConnection() {
        submit(.stopTLS, timeout: 0) { _ in }
    }

    // MARK: Async forms

    /// Upgrades to TLS as a client and returns once the handshake is done; see
    /// ``startSecureConnection()``.
    ///
    /// - Parameter timeout: Seconds for the wait behind earlier operations and the handshake; 0
    ///   means none. A handshake that times out closes the connection.
    public func startTLS(timeout: TimeInterval = 0) async throws {
        _ = try await awaitOperation(.startTLS(.client(configuration.tls)), timeout: timeout)
    }

    /// Upgrades to TLS as a server and returns once the handshake is done.
    public func startTLS(asServerWith configuration: StreamTLSConfiguration, timeout: TimeInterval = 0) async throws {
        _ = try await awaitOperation(.startTLS(.server(configuration)), timeout: timeout)
    }

    /// Ends TLS (close_notify both ways) and returns once the connection is plaintext again.
    ///
    /// - Throws: ``StreamTaskError/Code/tlsNotActive`` if the connection is not using TLS.
    public func stopTLS(timeout: TimeInterval = 0) async throws {
        _ = try await awaitOperation(.stopTLS, timeout: timeout)
    }
}
