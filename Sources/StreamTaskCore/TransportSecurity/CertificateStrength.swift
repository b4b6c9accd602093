//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What App Transport Security checks in one certificate: the hash its issuer signed it with,
/// and the size of its key. Read from the DER bytes (see ``DERReader``).
struct CertificateStrength: Equatable {
    /// The signature algorithm's name (`sha1WithRSAEncryption`) or dotted identifier.
    let signatureAlgorithm: String
    /// Whether that algorithm hashes with SHA-256 or stronger (or needs no separate hash).
    let hasStrongSignatureHash: Bool
    /// `RSA` or `EC`, or the key algorithm's identifier for other keys.
    let keyKind: String
    /// The key's size in bits (the modulus for RSA, the curve for EC); `nil` when unknown.
    let keyBits: Int?
    /// Whether issuer and subject are the same name: a root, whose own signature proves nothing.
    let isSelfIssued: Bool

    /// Whether the key is as large as ATS requires: RSA 2048 bits, EC 256 bits; Edwards keys pass.
    var hasStrongKey: Bool {
        switch keyKind {
        case "RSA": (keyBits ?? 0) >= 2048
        case "EC": (keyBits ?? 0) >= 256
        case "Ed25519", "Ed448": true
        default: false
        }
    }

    /// `RSA 1024-bit`, `EC 256-bit`.
    var keyDescription: String {
        keyBits.map { "\(keyKind) \($0)-bit" } ?? "\(keyKind) (size unknown)"
    }

    /// `nil` when `der` is not a certificate this reader understands.
    init?(der: [UInt8]) {
        guard let certificate = DERReader(der[...]).all()?.first, certificate.tag == DERReader.sequence,
            let parts = certificate.children, parts.count >= 2,
            var tbs = parts[0].children, let signature = parts[1].children?.first,
            signature.tag == DERReader.objectIdentifier
        else { return nil }
        if tbs.first?.tag == 0xA0 { tbs.removeFirst() }
        // serial, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard tbs.count >= 6, let keyInfo = tbs[5].children, keyInfo.count == 2,
            let keyAlgorithm = keyInfo[0].children, let keyOID = keyAlgorithm.first
        else { return nil }
        let signatureOID = DERReader.dotted(signature.contents)
        let (name, strong) =
            signatureOID == Self.rsassaPSS
            ? Self.pssAlgorithm(parameters: parts[1].children?.dropFirst().first)
            : Self.signatureAlgorithms[signatureOID] ?? (signatureOID, false)
        signatureAlgorithm = name
        hasStrongSignatureHash = strong
        isSelfIssued = tbs[2].contents == tbs[4].contents
        switch DERReader.dotted(keyOID.contents) {
        case "1.2.840.113549.1.1.1":
            keyKind = "RSA"
            keyBits = Self.rsaModulusBits(keyInfo[1])
        case "1.2.840.10045.2.1":
            keyKind = "EC"
            keyBits = keyAlgorithm.dropFirst().first.flatMap { Self.curveBits[DERReader.dotted($0.contents)] }
        case "1.3.101.112":
            keyKind = "Ed25519"
            keyBits = 256
        case "1.3.101.113":
            keyKind = "Ed448"
            keyBits = 448
        case let other:
            keyKind = "key algorithm \(other)"
            keyBits = nil
        }
    }

    /// The modulus length of an RSA key's BIT STRING (`RSAPublicKey ::= SEQUENCE { n, e }`).
    private static func rsaModulusBits(_ bitString: DERReader.Element) -> Int? {
        guard bitString.tag == DERReader.bitString, bitString.contents.count > 1,
            let key = DERReader(bitString.contents.dropFirst()).all()?.first, key.tag == DERReader.sequence,
            let modulus = key.children?.first, modulus.tag == DERReader.integer
        else { return nil }
        let digits = modulus.contents.drop { $0 == 0 }
        guard let top = digits.first else { return 0 }
        return (digits.count - 1) * 8 + (8 - top.leadingZeroBitCount)
    }

    /// Signature algorithms by identifier: the name, and whether the hash is SHA-256 or stronger.
    private static let signatureAlgorithms: [String: (String, Bool)] = [
        "1.2.840.113549.1.1.2": ("md2WithRSAEncryption", false),
        "1.2.840.113549.1.1.4": ("md5WithRSAEncryption", false),
        "1.2.840.113549.1.1.5": ("sha1WithRSAEncryption", false),
        "1.2.840.113549.1.1.14": ("sha224WithRSAEncryption", false),
        "1.2.840.113549.1.1.11": ("sha256WithRSAEncryption", true),
        "1.2.840.113549.1.1.12": ("sha384WithRSAEncryption", true),
        "1.2.840.113549.1.1.13": ("sha512WithRSAEncryption", true),
        "1.2.840.10045.4.1": ("ecdsa-with-SHA1", false),
        "1.2.840.10045.4.3.1": ("ecdsa-with-SHA224", false),
        "1.2.840.10045.4.3.2": ("ecdsa-with-SHA256", true),
        "1.2.840.10045.4.3.3": ("ecdsa-with-SHA384", true),
        "1.2.840.10045.4.3.4": ("ecdsa-with-SHA512", true),
        "1.2.840.10040.4.3": ("dsa-with-sha1", false),
        "1.3.101.112": ("Ed25519", true),
        "1.3.101.113": ("Ed448", true),
    ]

    /// RSASSA-PSS (RFC 4055), whose hash is named in its parameters.
    private static let rsassaPSS = "1.2.840.113549.1.1.10"

    /// An RSASSA-PSS signature's name and whether its hash is SHA-256 or stronger: the hash is
    /// the parameters' `[0]` field, SHA-1 when it is absent (RFC 4055, section 3.1).
    private static func pssAlgorithm(parameters: DERReader.Element?) -> (String, Bool) {
        let fields = parameters.flatMap { $0.tag == DERReader.sequence ? $0.children : nil } ?? []
        guard let field = fields.first(where: { $0.tag == 0xA0 }) else { return ("rsassaPss-with-SHA1", false) }
        guard let hash = field.children?.first?.children?.first, hash.tag == DERReader.objectIdentifier else {
            return ("rsassaPss with an unreadable hash", false)
        }
        let oid = DERReader.dotted(hash.contents)
        guard let (name, strong) = pssHashes[oid] else { return ("rsassaPss with hash \(oid)", false) }
        return ("rsassaPss-with-\(name)", strong)
    }

    /// Hash algorithms by identifier: the name, and whether it is SHA-256 or stronger.
    private static let pssHashes: [String: (String, Bool)] = [
        "1.3.14.3.2.26": ("SHA1", false),
        "2.16.840.1.101.3.4.2.4": ("SHA224", false),
        "2.16.840.1.101.3.4.2.1": ("SHA256", true),
        "2.16.840.1.101.3.4.2.2": ("SHA384", true),
        "2.16.840.1.101.3.4.2.3": ("SHA512", true),
    ]

    /// Named curves by identifier, with their size in bits.
    private static let curveBits: [String: Int] = [
        "1.2.840.10045.3.1.1": 192,
        "1.3.132.0.33": 224,
        "1.2.840.10045.3.1.7": 256,
        "1.3.132.0.10": 256,
        "1.3.132.0.34": 384,
        "1.3.132.0.35": 521,
    ]
}
