//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a chat server advertises over DNS-SD: the service type and the TXT record keys of
/// Protocol.md's "DNS-SD" section, as plain strings (no DNS-SD dependency here).
public struct ChatServiceRecord: Sendable, Hashable {
    /// The DNS-SD service type: `_irc._tcp`.
    public static let serviceType = "_irc._tcp"
    /// The TXT record layout version this type writes and reads.
    public static let version = "1"

    /// The network name (the `name` key).
    public var name: String
    /// Whether the server offers STARTTLS on the advertised port (`tls=starttls` or `tls=none`).
    public var offersSTARTTLS: Bool
    /// The SHA-256 of the server certificate's DER encoding (`fp=sha256:<hex>`), 32 bytes;
    /// only meaningful when ``offersSTARTTLS``.
    public var certificateSHA256: [UInt8]?

    /// A record from its values.
    public init(name: String, offersSTARTTLS: Bool, certificateSHA256: [UInt8]? = nil) {
        self.name = name
        self.offersSTARTTLS = offersSTARTTLS
        self.certificateSHA256 = certificateSHA256
    }

    /// Reads a TXT record given as key-value strings. Returns `nil` when `txtvers` is missing
    /// or not `1`. A malformed `fp` is ignored (then there is nothing to pin to) rather than
    /// trusted; keys not known here are ignored.
    public init?(txtRecord: [String: String]) {
        let lowercased = Dictionary(
            txtRecord.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        guard lowercased["txtvers"] == Self.version else { return nil }
        name = lowercased["name"] ?? ""
        offersSTARTTLS = lowercased["tls"] == "starttls"
        certificateSHA256 = lowercased["fp"].flatMap(Self.parseFingerprint)
    }

    /// The TXT record as key-value strings.
    public var txtRecord: [String: String] {
        var record = ["txtvers": Self.version, "name": name, "tls": offersSTARTTLS ? "starttls" : "none"]
        if offersSTARTTLS, let certificateSHA256 {
            record["fp"] = Self.fingerprint(certificateSHA256)
        }
        return record
    }

    /// `sha256:` and the digest in lowercase hexadecimal.
    public static func fingerprint(_ digest: [UInt8]) -> String {
        "sha256:"
            + digest.map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
    }

    /// The 32 bytes of an `fp` value (`sha256:` and 64 hex digits, either case); `nil` otherwise.
    public static func parseFingerprint(_ value: String) -> [UInt8]? {
        guard value.lowercased().hasPrefix("sha256:") else { return nil }
        let hex = Array(value.utf8.dropFirst(7))
        guard hex.count == 64, hex.allSatisfy(ASCII.isHexDigit) else { return nil }
        var digest: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            digest.append(byte)
        }
        return digest
    }
}
