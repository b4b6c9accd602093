//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// An error from browsing, resolving or registering a DNS-SD service, or from connecting to one.
///
/// Errors are compared by ``code``: `error.code == .nameConflict`. The ``description`` is a
/// sentence a person can act on; when the DNS-SD daemon reported the failure, it also names the
/// daemon's error (for example `kDNSServiceErr_NameConflict (-65548)`) and says what it means.
public struct DNSSDError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added in later releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case serviceNotRunning
            case nameConflict
            case invalidArgument
            case invalidTXTRecord
            case unsupported
            case serviceNotFound
            case noAddresses
            case timedOut
            case connectFailed
            case cancelled
            case daemonError
        }

        let base: Base

        /// No DNS-SD daemon answered: on Linux `avahi-daemon` (or the D-Bus system bus it
        /// needs) is not running; on Darwin, `mDNSResponder`. The description says how to start it.
        public static let serviceNotRunning = Code(base: .serviceNotRunning)
        /// The service name is taken and renaming was not allowed, or every alternative was taken.
        public static let nameConflict = Code(base: .nameConflict)
        /// An argument was rejected: a malformed service type, a name that is too long, a port
        /// out of range, or a listener that has not been started.
        public static let invalidArgument = Code(base: .invalidArgument)
        /// A TXT record key or entry is not valid (empty key, `=` in a key, an entry over 255 bytes).
        public static let invalidTXTRecord = Code(base: .invalidTXTRecord)
        /// The daemon does not support the request (Avahi's compatibility layer lacks parts of
        /// Apple's API).
        public static let unsupported = Code(base: .unsupported)
        /// The service did not resolve: it is no longer advertised, or never was.
        public static let serviceNotFound = Code(base: .serviceNotFound)
        /// The service's host name resolved to no address in time.
        public static let noAddresses = Code(base: .noAddresses)
        /// The operation did not finish within its timeout.
        public static let timedOut = Code(base: .timedOut)
        /// The service resolved, but no connection to any of its addresses succeeded; the
        /// description lists each address with its error.
        public static let connectFailed = Code(base: .connectFailed)
        /// The operation, or the Swift task waiting for it, was cancelled.
        public static let cancelled = Code(base: .cancelled)
        /// Another error from the daemon; see ``DNSSDError/daemonErrorCode`` and the description.
        public static let daemonError = Code(base: .daemonError)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The `DNSServiceErrorType` value the daemon returned, when it reported the failure.
    public let daemonErrorCode: Int32?
    /// A sentence describing the failure.
    public let message: String
    /// The lower-level error this one wraps (for a failed connection, the last
    /// `StreamTaskError`), if any.
    public let underlyingError: (any Error)?

    init(_ code: Code, _ message: String, daemonErrorCode: Int32? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.daemonErrorCode = daemonErrorCode
        self.underlyingError = underlying
    }

    /// The daemon's name for ``daemonErrorCode``, for example `kDNSServiceErr_NameConflict`.
    public var daemonErrorName: String? {
        daemonErrorCode.map { DNSServiceErrorText.name(of: $0) }
    }

    public var description: String {
        var text = "DNSSDError.\(code): \(message)"
        if let daemonErrorCode {
            let name = DNSServiceErrorText.name(of: daemonErrorCode)
            text += " [\(name) (\(daemonErrorCode)): \(DNSServiceErrorText.sentence(for: daemonErrorCode))]"
        }
        return text
    }
}

extension DNSSDError: LocalizedError {
    public var errorDescription: String? { description }
}

extension DNSSDError {
    static func invalidArgument(_ message: String) -> DNSSDError {
        DNSSDError(.invalidArgument, message)
    }

    static func cancelled(_ what: String) -> DNSSDError {
        DNSSDError(.cancelled, "\(what) was cancelled")
    }
}
