//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// An error from a stream task, a session or a listener.
///
/// Errors are compared by ``code``: `error.code == .timedOut`. The ``description`` is a sentence
/// a person can act on; it names the host and port where the error concerns a connection and,
/// where the operating system reported one, the `errno` value.
public struct StreamTaskError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added in later releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case invalidArgument
            case timedOut
            case cancelled
            case hostNotFound
            case connectionRefused
            case unreachable
            case connectTimeout
            case connectionReset
            case connectionFailed
            case proxyConnectFailed
            case proxyAuthenticationRequired
            case proxyRefused
            case proxyProtocolError
            case proxyHandshakeTimeout
            case connectionClosed
            case readClosed
            case writeClosed
            case delimiterNotFound
            case invalidFrame
            case truncatedFrame
            case invalidMessage
            case sessionInvalidated
            case listenerClosed
            case bindFailed
            case tlsHandshakeFailed
            case tlsUntrustedCertificate
            case tlsHostnameMismatch
            case tlsCertificateExpired
            case tlsVersionTooOld
            case tlsPinMismatch
            case tlsPlaintextInjection
            case tlsTruncated
            case tlsNotActive
            case tlsConfigurationInvalid
            case streamsCaptured
            case httpProtocolError
            case transportSecurityRequiresSecureConnection
            case transportSecurityMinimumVersion
            case transportSecurityCipherSuite
            case transportSecurityKeySize
            case transportSecurityHashAlgorithm
            case transportSecurityTrust
        }

        let base: Base

        /// An argument was out of range (negative lengths, `maxLength < minLength`, …).
        public static let invalidArgument = Code(base: .invalidArgument)
        /// The operation did not finish within its timeout.
        public static let timedOut = Code(base: .timedOut)
        /// The task, or the waiting Swift task, was cancelled.
        public static let cancelled = Code(base: .cancelled)
        /// The host name did not resolve to any address.
        public static let hostNotFound = Code(base: .hostNotFound)
        /// The peer refused the connection (nothing listens on that port).
        public static let connectionRefused = Code(base: .connectionRefused)
        /// No route to the host or its network.
        public static let unreachable = Code(base: .unreachable)
        /// Connecting took longer than the connect timeout.
        public static let connectTimeout = Code(base: .connectTimeout)
        /// The peer reset the connection.
        public static let connectionReset = Code(base: .connectionReset)
        /// Connecting failed for another reason; see the description and ``StreamTaskError/errno``.
        public static let connectionFailed = Code(base: .connectionFailed)
        /// The connection closed while the operation was outstanding, or was already closed.
        public static let connectionClosed = Code(base: .connectionClosed)
        /// Reading was closed with ``StreamTask/closeRead()``.
        public static let readClosed = Code(base: .readClosed)
        /// Writing was closed with ``StreamTask/closeWrite()``.
        public static let writeClosed = Code(base: .writeClosed)
        /// A delimited read found no delimiter within its maximum length; the bytes stay buffered.
        public static let delimiterNotFound = Code(base: .delimiterNotFound)
        /// The bytes at the head of the stream are not a frame the framer accepts (a length over
        /// its maximum, a line longer than its limit, …); they stay buffered.
        public static let invalidFrame = Code(base: .invalidFrame)
        /// The stream ended inside a frame: the description says how many bytes were left.
        public static let truncatedFrame = Code(base: .truncatedFrame)
        /// A whole frame arrived, but its message could not be made of it (a decoder's error,
        /// in the description and ``StreamTaskError/underlyingError``); the frame was taken.
        public static let invalidMessage = Code(base: .invalidMessage)
        /// The session was invalidated before the task could start.
        public static let sessionInvalidated = Code(base: .sessionInvalidated)
        /// The listener is shut down.
        public static let listenerClosed = Code(base: .listenerClosed)
        /// The listener could not bind its address.
        public static let bindFailed = Code(base: .bindFailed)
        /// The TLS handshake failed for a reason other than those below (see the description).
        public static let tlsHandshakeFailed = Code(base: .tlsHandshakeFailed)
        /// The peer's certificate chain does not lead to a trusted root.
        public static let tlsUntrustedCertificate = Code(base: .tlsUntrustedCertificate)
        /// The peer's certificate is not valid for the host name the task connected to.
        public static let tlsHostnameMismatch = Code(base: .tlsHostnameMismatch)
        /// A certificate in the peer's chain has expired or is not yet valid.
        public static let tlsCertificateExpired = Code(base: .tlsCertificateExpired)
        /// The peer offered only TLS versions below the configured minimum (or above the maximum).
        public static let tlsVersionTooOld = Code(base: .tlsVersionTooOld)
        /// The peer's certificate matches none of the configured pins.
        public static let tlsPinMismatch = Code(base: .tlsPinMismatch)
        /// Bytes arrived in plaintext between the STARTTLS go-ahead and the handshake; the upgrade
        /// was refused (CVE-2011-0411).
        public static let tlsPlaintextInjection = Code(base: .tlsPlaintextInjection)
        /// The peer closed the connection without ending TLS first (no `close_notify` alert):
        /// what arrived before is intact, but more may have been cut off (RFC 8446, section
        /// 6.1). Reads get the bytes received before it, then this error instead of the end.
        public static let tlsTruncated = Code(base: .tlsTruncated)
        /// `stopSecureConnection` was called on a task that is not using TLS.
        public static let tlsNotActive = Code(base: .tlsNotActive)
        /// The TLS configuration could not be used (unreadable certificate or key, …).
        public static let tlsConfigurationInvalid = Code(base: .tlsConfigurationInvalid)
        /// The task's connection was handed over with `captureStreams()`: use the streams.
        public static let streamsCaptured = Code(base: .streamsCaptured)
        /// A data task's peer did not speak HTTP/1.1 as required (a malformed response head,
        /// a response that ended early, …).
        public static let httpProtocolError = Code(base: .httpProtocolError)
        /// App Transport Security refused a data task's `http://` URL
        /// (`NSExceptionAllowsInsecureHTTPLoads` allows it). See ``StreamTransportSecurity``.
        public static let transportSecurityRequiresSecureConnection = Code(
            base: .transportSecurityRequiresSecureConnection)
        /// App Transport Security refused the TLS version the server speaks
        /// (`NSExceptionMinimumTLSVersion` allows older ones).
        public static let transportSecurityMinimumVersion = Code(base: .transportSecurityMinimumVersion)
        /// The server accepted none of the forward-secret cipher suites App Transport Security
        /// requires (`NSExceptionRequiresForwardSecrecy` set to `NO` allows others).
        public static let transportSecurityCipherSuite = Code(base: .transportSecurityCipherSuite)
        /// A certificate in the server's chain has a key App Transport Security finds too small:
        /// RSA under 2048 bits, EC under 256.
        public static let transportSecurityKeySize = Code(base: .transportSecurityKeySize)
        /// A certificate in the server's chain is signed with a hash App Transport Security finds
        /// too weak (SHA-1, MD5: SHA-256 or stronger is required).
        public static let transportSecurityHashAlgorithm = Code(base: .transportSecurityHashAlgorithm)
        /// The configuration or a delegate loosened server trust (verification off, a pinned
        /// certificate that default evaluation refuses, a delegate accepting a refused chain),
        /// which App Transport Security does not allow without `NSExceptionAllowsInsecureHTTPLoads`.
        public static let transportSecurityTrust = Code(base: .transportSecurityTrust)

        public var description: String { base.rawValue }

        /// Whether App Transport Security refused the connection (the `transportSecurity…` codes).
        public var isTransportSecurity: Bool { base.rawValue.hasPrefix("transportSecurity") }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The host the task was connecting or connected to, when there is one.
    public let host: String?
    /// The port the task was connecting or connected to, when there is one.
    public let port: Int?
    /// The operating system's error number, when the failure came from a system call.
    public let errno: Int32?
    /// A sentence describing the failure.
    public let message: String
    /// The lower-level error this one wraps, if any.
    public let underlyingError: (any Error)?

    package init(
        _ code: Code,
        _ message: String,
        host: String? = nil,
        port: Int? = nil,
        errno: Int32? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.host = host
        self.port = port
        self.errno = errno
        self.underlyingError = underlying
    }

    /// The same error, attributed to a host and port.
    package func at(host: String, port: Int) -> StreamTaskError {
        if self.host != nil { return self }
        return StreamTaskError(code, message, host: host, port: port, errno: errno, underlying: underlyingError)
    }

    public var description: String {
        "StreamTaskError.\(code): \(summary)"
    }

    /// The message with the endpoint it concerns and the system's reason, without the type's
    /// name: what a program shows its user, as in
    /// `could not listen on that address (127.0.0.1:6667) [errno 98: Address already in use]`.
    public var summary: String {
        var text = message
        if let host, let port {
            text += " (\(Self.endpoint(host: host, port: port)))"
        }
        if let errno {
            text += " [errno \(errno): \(String(cString: strerror(errno)))]"
        }
        return text
    }

    static func endpoint(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension StreamTaskError: LocalizedError {
    public var errorDescription: String? { description }
}

extension StreamTaskError {
    package static func invalidArgument(_ message: String) -> StreamTaskError {
        StreamTaskError(.invalidArgument, message)
    }

    package static let cancelled = StreamTaskError(.cancelled, "the task was cancelled")
    static let readClosed = StreamTaskError(.readClosed, "reading was closed with closeRead()")
    static let writeClosed = StreamTaskError(.writeClosed, "writing was closed with closeWrite()")
    static let streamsCaptured = StreamTaskError(
        .streamsCaptured,
        "the connection was handed over with captureStreams(); read and write it through the streams"
    )
}

extension StreamTaskError {
    /// What an operation gets when the connection it needs has closed in order.
    static let connectionIsClosed = StreamTaskError(.connectionClosed, "the connection is closed")
}
