//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What Apple's API reports for each failure.
///
/// The Apple-shaped surface (completion handlers, the `urlSession(…)` delegate methods and
/// ``StreamSessionTask/error``) reports `URLError` values, as Darwin does, so that
/// `error as? URLError` and `(error as NSError).code == NSURLErrorTimedOut` hold. The library's
/// async API throws ``StreamTaskError`` itself, whose `NSError` form has the same domain and
/// code. Either way the detail stays one step away: `streamTaskError`.
extension StreamTaskError: CustomNSError {
    /// `NSURLErrorDomain`, as Apple's errors for the same failures.
    public static var errorDomain: String { NSURLErrorDomain }

    /// The `URLError` code Apple's API gives for this failure.
    public var errorCode: Int { urlErrorCode.rawValue }

    /// The description, and this error as the underlying one.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, Self.userInfoKey: self]
    }

    /// The key under which a `URLError` made by the library keeps the ``StreamTaskError``.
    static let userInfoKey = "StreamTaskErrorKey"

    /// The `URLError` code Apple's `URLSession` gives for a failure of this kind.
    public var urlErrorCode: URLError.Code {
        switch code {
        case .timedOut, .connectTimeout, .proxyHandshakeTimeout: .timedOut
        case .cancelled, .sessionInvalidated, .listenerClosed, .streamsCaptured: .cancelled
        case .hostNotFound: .cannotFindHost
        case .connectionRefused, .unreachable, .connectionFailed, .proxyConnectFailed, .proxyRefused, .bindFailed:
            .cannotConnectToHost
        case .connectionReset, .connectionClosed, .readClosed, .writeClosed, .tlsTruncated: .networkConnectionLost
        case .proxyAuthenticationRequired: .userAuthenticationRequired
        case .proxyProtocolError, .httpProtocolError: .badServerResponse
        case .delimiterNotFound, .invalidFrame: .dataLengthExceedsMaximum
        case .truncatedFrame: .networkConnectionLost
        case .invalidMessage: .cannotParseResponse
        case .invalidArgument: .badURL
        case .tlsUntrustedCertificate, .tlsHostnameMismatch, .tlsPinMismatch: .serverCertificateUntrusted
        case .tlsCertificateExpired: .serverCertificateHasBadDate
        case .tlsHandshakeFailed, .tlsVersionTooOld, .tlsPlaintextInjection, .tlsNotActive, .tlsConfigurationInvalid:
            .secureConnectionFailed
        case .transportSecurityRequiresSecureConnection: .appTransportSecurityRequiresSecureConnection
        case .transportSecurityMinimumVersion, .transportSecurityCipherSuite, .transportSecurityKeySize,
            .transportSecurityHashAlgorithm:
            .secureConnectionFailed
        case .transportSecurityTrust: .serverCertificateUntrusted
        default: .unknown
        }
    }

    /// This failure as the `URLError` Apple's API would report: its code, this error's
    /// description as the localized description, and this error as the underlying error
    /// (`NSUnderlyingErrorKey`, and `streamTaskError`).
    public var urlError: URLError {
        URLError(
            urlErrorCode,
            userInfo: [
                NSLocalizedDescriptionKey: description,
                NSUnderlyingErrorKey: self as NSError,
                Self.userInfoKey: self,
            ]
        )
    }
}

extension Error {
    /// The library's detailed error behind this one: the error itself when it is a
    /// ``StreamTaskError``, the one a `URLError` from the library carries, else `nil`.
    public var streamTaskError: StreamTaskError? {
        if let error = self as? StreamTaskError { return error }
        if let error = self as? URLError { return error.userInfo[StreamTaskError.userInfoKey] as? StreamTaskError }
        return nil
    }
}
