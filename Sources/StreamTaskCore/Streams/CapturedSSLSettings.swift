//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if !canImport(CFNetwork)
// CFNetwork's keys for a socket stream's TLS settings, where CFNetwork is missing: code that
// spells them `kCFStreamPropertySSLSettings as String` ports unchanged. Each has its own name
// as its value, as on Darwin.

/// The key of a socket stream's TLS settings: a dictionary with the keys below. Setting it
/// starts TLS on a captured stream's connection, as setting the security level does.
public let kCFStreamPropertySSLSettings = "kCFStreamPropertySSLSettings"
/// The name the server's certificate must carry, instead of the host connected to; `NSNull`
/// for no name check.
public let kCFStreamSSLPeerName = "kCFStreamSSLPeerName"
/// Whether the server's certificate chain is checked (a `Bool` or `NSNumber`; `true` if absent).
public let kCFStreamSSLValidatesCertificateChain = "kCFStreamSSLValidatesCertificateChain"
/// The security level, a `StreamSocketSecurityLevel` raw value.
public let kCFStreamSSLLevel = "kCFStreamSSLLevel"
/// Whether the stream takes TLS's server side; captured streams take the client's only.
public let kCFStreamSSLIsServer = "kCFStreamSSLIsServer"
/// The stream's own identity and chain (Security framework objects); not taken on Linux.
public let kCFStreamSSLCertificates = "kCFStreamSSLCertificates"
#endif

/// The TLS settings a captured stream was given under `kCFStreamPropertySSLSettings`.
struct CapturedSSLSettings: Sendable {
    /// What the server's certificate must name.
    enum PeerName: Sendable {
        /// The host the task connected to.
        case host
        /// This name (sent in SNI too).
        case name(String)
        /// Anything: no name check.
        case unchecked
    }

    var peerName = PeerName.host
    var validatesCertificateChain = true
    /// The level the settings name (`kCFStreamSSLLevel`), if any.
    var level: String?

    init() {}

    /// The settings in `property`, a dictionary; the reason to refuse it when it is not one, or
    /// asks for what captured streams cannot do (TLS's server side, an identity of their own).
    static func parse(_ property: AnyObject?) -> Result<CapturedSSLSettings, StreamTaskError> {
        guard let entries = dictionary(property) else {
            return .failure(StreamTaskError(.invalidArgument, "kCFStreamPropertySSLSettings takes a dictionary"))
        }
        var settings = CapturedSSLSettings()
        for (key, value) in entries {
            switch key {
            case "kCFStreamSSLPeerName":
                if value is NSNull {
                    settings.peerName = .unchecked
                } else if let name = value as? String {
                    settings.peerName = .name(name)
                }
            case "kCFStreamSSLValidatesCertificateChain":
                settings.validatesCertificateChain = boolean(value) ?? true
            case "kCFStreamSSLLevel":
                settings.level = CapturedTLS.level(of: value as AnyObject)
            case "kCFStreamSSLIsServer" where boolean(value) == true:
                return .failure(
                    StreamTaskError(
                        .invalidArgument,
                        "captured streams take TLS's client side only (kCFStreamSSLIsServer): accept with a "
                            + "StreamListener and call startSecureConnection(asServerWith:) instead"))
            case "kCFStreamSSLCertificates":
                return .failure(
                    StreamTaskError(
                        .invalidArgument,
                        "kCFStreamSSLCertificates holds Security framework objects, which Linux lacks: give "
                            + "the session's tls configuration a client identity instead"))
            default:
                break
            }
        }
        return .success(settings)
    }

    private static func dictionary(_ property: AnyObject?) -> [String: Any]? {
        if let entries = property as? [String: Any] { return entries }
        guard let dictionary = property as? NSDictionary else { return nil }
        var entries: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = (key as? String) ?? (key as? NSString).map({ String($0) }) else { continue }
            entries[key] = value
        }
        return entries
    }

    private static func boolean(_ value: Any) -> Bool? {
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue
    }

    /// The role to start TLS in: the session's configuration, with these settings applied.
    func clientRole(from configuration: StreamTLSConfiguration) -> TLSRole {
        var configuration = configuration
        if !validatesCertificateChain {
            configuration.certificateVerification = .none
        }
        switch peerName {
        case .host:
            return .client(configuration)
        case .name(let name):
            return .client(configuration, peerName: name)
        case .unchecked:
            if configuration.certificateVerification == .full {
                configuration.certificateVerification = .noHostnameVerification
            }
            return .client(configuration)
        }
    }
}
