//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import NIOSSL

/// An X.509 certificate, loaded from PEM or DER.
///
/// A plain value: it holds the certificate's DER bytes, so it is `Sendable`, `Hashable` and cheap
/// to keep in a configuration. The fingerprints are what ``TLSPin`` matches.
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let derBytes: [UInt8]

    /// A certificate from its DER encoding.
    public init(derBytes: [UInt8]) throws {
        // Parse once to reject garbage early, with a clear error.
        _ = try Self.parse { try NIOSSLCertificate(bytes: derBytes, format: .der) }
        self.derBytes = derBytes
    }

    /// The first certificate of a PEM text.
    public init(pem: String) throws {
        guard let first = try Self.chain(pem: pem).first else {
            throw StreamTaskError(.tlsConfigurationInvalid, "the PEM text holds no certificate")
        }
        self = first
    }

    /// The first certificate of a PEM file.
    public init(pemFile path: String) throws {
        guard let first = try Self.chain(pemFile: path).first else {
            throw StreamTaskError(.tlsConfigurationInvalid, "\(path) holds no certificate")
        }
        self = first
    }

    /// Every certificate of a PEM text, in order (a chain: leaf first).
    public static func chain(pem: String) throws -> [TLSCertificate] {
        let certificates = try parse { try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)) }
        return try certificates.map { TLSCertificate(verifiedDER: try $0.toDERBytes()) }
    }

    /// Every certificate of a PEM file, in order (a chain: leaf first).
    public static func chain(pemFile path: String) throws -> [TLSCertificate] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StreamTaskError(.tlsConfigurationInvalid, "cannot read \(path): \(error.localizedDescription)")
        }
        return try chain(pem: text)
    }

    init(verifiedDER: [UInt8]) {
        self.derBytes = verifiedDER
    }

    /// SHA-256 of the whole certificate (its DER encoding), as `openssl x509 -fingerprint -sha256`
    /// prints it.
    public var sha256Fingerprint: [UInt8] {
        Array(SHA256.hash(data: derBytes))
    }

    /// SHA-256 of the certificate's SubjectPublicKeyInfo: it survives re-issuing a certificate
    /// for the same key.
    public var publicKeySHA256: [UInt8] {
        get throws {
            let spki = try Self.parse { try nioCertificate().extractPublicKey().toSPKIBytes() }
            return Array(SHA256.hash(data: spki))
        }
    }

    /// The subject, as OpenSSL prints it (for messages and logs).
    public var description: String {
        (try? nioCertificate().description) ?? "TLSCertificate(\(derBytes.count) bytes)"
    }

    func nioCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: derBytes, format: .der)
    }

    static func parse<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StreamTaskError {
            throw error
        } catch {
            throw StreamTaskError(.tlsConfigurationInvalid, "not a usable certificate: \(error)", underlying: error)
        }
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal, two digits a byte, optionally separated (e.g. by ":").
    func hexString(separator: String = "") -> String {
        map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined(separator: separator)
    }
}
