//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation

extension NetService {
    /// The errors a `NetService` or `NetServiceBrowser` reports, with Foundation's values.
    ///
    /// A delegate's error dictionary holds one under NetService/errorCode, as an `NSNumber`:
    /// `NetService.ErrorCode(rawValue: errorDict[NetService.errorCode]!.intValue)`.
    public enum ErrorCode: Int, Sendable {
        /// An unknown error occurred (here also: the DNS-SD daemon is not running, or failed).
        case unknownError = -72000
        /// The service could not be published because the name is already in use.
        case collisionError = -72001
        /// The service could not be found on the network.
        case notFoundError = -72002
        /// The object is already publishing, resolving or searching.
        case activityInProgress = -72003
        /// An argument was not valid: a malformed service type, a name or TXT record that
        /// cannot be published, a port out of range, or an option this platform lacks.
        case badArgumentError = -72004
        /// The operation was cancelled.
        case cancelledError = -72005
        /// The service or browser is not valid for the request.
        case invalidError = -72006
        /// Resolving did not finish within the timeout.
        case timeoutError = -72007
        /// A required configuration is missing (on Darwin: a local network privacy entry in
        /// Info.plist; never reported on Linux).
        case missingRequiredConfigurationError = -72008
    }

    /// The key of an error dictionary's error code, a `NetService.ErrorCode` raw value.
    public static let errorCode = "NSNetServicesErrorCode"

    /// The key of an error dictionary's error domain: where the error came from. For most errors
    /// you should not need it; here it is always 10, `kCFStreamErrorDomainNetServices`.
    public static let errorDomain = "NSNetServicesErrorDomain"

    /// `kCFStreamErrorDomainNetServices`: the value under errorDomain.
    static let netServicesErrorDomain = 10

    /// The error dictionary a delegate receives for `code`.
    static func errorDictionary(_ code: ErrorCode) -> [String: NSNumber] {
        [errorCode: NSNumber(value: code.rawValue), errorDomain: NSNumber(value: netServicesErrorDomain)]
    }
}

extension NetService.ErrorCode {
    /// The Foundation error for one of this module's errors.
    init(_ error: DNSSDError) {
        switch error.code {
        case .nameConflict: self = .collisionError
        case .invalidArgument, .invalidTXTRecord, .unsupported: self = .badArgumentError
        case .serviceNotFound: self = .notFoundError
        case .timedOut, .noAddresses: self = .timeoutError
        case .cancelled: self = .cancelledError
        default: self = .unknownError
        }
    }
}
#endif
