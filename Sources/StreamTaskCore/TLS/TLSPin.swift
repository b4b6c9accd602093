//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A certificate pin: the SHA-256 of a certificate, or of its public key.
///
/// With pins configured, the peer's leaf certificate must match at least one of them. Pins add
/// to chain verification; with ``StreamTLSConfiguration/CertificateVerification/none`` they
/// replace it, which is how a client trusts exactly one self-signed server (for example one whose
/// fingerprint it learned from a DNS-SD TXT record).
public struct TLSPin: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case certificate
        case publicKey
    }

    let kind: Kind
    /// The 32-byte SHA-256 digest.
    public let sha256: [UInt8]

    /// Pins the SHA-256 of the whole certificate (its DER encoding).
    public static func certificateSHA256(_ digest: [UInt8]) -> TLSPin {
        TLSPin(kind: .certificate, sha256: digest)
    }

    /// Pins the SHA-256 of the certificate's SubjectPublicKeyInfo.
    public static func publicKeySHA256(_ digest: [UInt8]) -> TLSPin {
        TLSPin(kind: .publicKey, sha256: digest)
    }

    /// Pins a certificate by the SHA-256 written in hexadecimal, with or without colons (as
    /// `openssl x509 -fingerprint -sha256` prints it). Returns `nil` for anything else.
    public static func certificateSHA256(hex: String) -> TLSPin? {
        let digits = hex.filter { $0 != ":" }.lowercased()
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return .certificateSHA256(bytes)
    }

    /// Whether `certificate` matches this pin.
    func matches(_ certificate: TLSCertificate) -> Bool {
        switch kind {
        case .certificate:
            return certificate.sha256Fingerprint == sha256
        case .publicKey:
            return (try? certificate.publicKeySHA256) == sha256
        }
    }

    public var description: String {
        "\(kind == .certificate ? "certificate" : "public key") SHA-256 \(sha256.hexString(separator: ":"))"
    }
}
