//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Security)
import Security
#else
/// The TLS and DTLS protocol versions, as the Security framework's `tls_protocol_version_t`
/// spells them on Darwin (`.TLSv12`, `.TLSv13`…), so that code setting
/// `tlsMinimumSupportedProtocolVersion` ports unchanged. The raw values are the versions'
/// numbers on the wire. Only on platforms without the Security framework.
public struct tls_protocol_version_t: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let TLSv10 = tls_protocol_version_t(rawValue: 0x0301)
    public static let TLSv11 = tls_protocol_version_t(rawValue: 0x0302)
    public static let TLSv12 = tls_protocol_version_t(rawValue: 0x0303)
    public static let TLSv13 = tls_protocol_version_t(rawValue: 0x0304)
    public static let DTLSv10 = tls_protocol_version_t(rawValue: 0xfeff)
    public static let DTLSv12 = tls_protocol_version_t(rawValue: 0xfefd)
}
/// The TLS cipher suites, as the Security framework's `tls_ciphersuite_t` spells them on Darwin
/// (`.AES_128_GCM_SHA256`, `.ECDHE_RSA_WITH_AES_128_GCM_SHA256`…), so that code reading
/// `negotiatedTLSCipherSuite` ports unchanged. The raw values are the suites' IANA numbers.
/// Only on platforms without the Security framework.
public struct tls_ciphersuite_t: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let RSA_WITH_3DES_EDE_CBC_SHA = tls_ciphersuite_t(rawValue: 0x000A)
    public static let RSA_WITH_AES_128_CBC_SHA = tls_ciphersuite_t(rawValue: 0x002F)
    public static let RSA_WITH_AES_256_CBC_SHA = tls_ciphersuite_t(rawValue: 0x0035)
    public static let RSA_WITH_AES_128_GCM_SHA256 = tls_ciphersuite_t(rawValue: 0x009C)
    public static let RSA_WITH_AES_256_GCM_SHA384 = tls_ciphersuite_t(rawValue: 0x009D)
    public static let RSA_WITH_AES_128_CBC_SHA256 = tls_ciphersuite_t(rawValue: 0x003C)
    public static let RSA_WITH_AES_256_CBC_SHA256 = tls_ciphersuite_t(rawValue: 0x003D)
    public static let ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC008)
    public static let ECDHE_ECDSA_WITH_AES_128_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC009)
    public static let ECDHE_ECDSA_WITH_AES_256_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC00A)
    public static let ECDHE_RSA_WITH_3DES_EDE_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC012)
    public static let ECDHE_RSA_WITH_AES_128_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC013)
    public static let ECDHE_RSA_WITH_AES_256_CBC_SHA = tls_ciphersuite_t(rawValue: 0xC014)
    public static let ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 = tls_ciphersuite_t(rawValue: 0xC023)
    public static let ECDHE_ECDSA_WITH_AES_256_CBC_SHA384 = tls_ciphersuite_t(rawValue: 0xC024)
    public static let ECDHE_RSA_WITH_AES_128_CBC_SHA256 = tls_ciphersuite_t(rawValue: 0xC027)
    public static let ECDHE_RSA_WITH_AES_256_CBC_SHA384 = tls_ciphersuite_t(rawValue: 0xC028)
    public static let ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 = tls_ciphersuite_t(rawValue: 0xC02B)
    public static let ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 = tls_ciphersuite_t(rawValue: 0xC02C)
    public static let ECDHE_RSA_WITH_AES_128_GCM_SHA256 = tls_ciphersuite_t(rawValue: 0xC02F)
    public static let ECDHE_RSA_WITH_AES_256_GCM_SHA384 = tls_ciphersuite_t(rawValue: 0xC030)
    public static let ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(rawValue: 0xCCA8)
    public static let ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(rawValue: 0xCCA9)
    public static let AES_128_GCM_SHA256 = tls_ciphersuite_t(rawValue: 0x1301)
    public static let AES_256_GCM_SHA384 = tls_ciphersuite_t(rawValue: 0x1302)
    public static let CHACHA20_POLY1305_SHA256 = tls_ciphersuite_t(rawValue: 0x1303)
}
#endif

extension StreamTLSConfiguration.Version {
    /// The version `tls_protocol_version_t` names; `nil` for DTLS and unknown values.
    init?(_ version: tls_protocol_version_t) {
        switch version.rawValue {
        case 0x0301: self = .tls1_0
        case 0x0302: self = .tls1_1
        case 0x0303: self = .tls1_2
        case 0x0304: self = .tls1_3
        default: return nil
        }
    }

    /// The same version as `tls_protocol_version_t`.
    var protocolVersion: tls_protocol_version_t {
        switch self {
        case .tls1_0: .TLSv10
        case .tls1_1: .TLSv11
        case .tls1_2: .TLSv12
        case .tls1_3: .TLSv13
        }
    }
}

extension tls_protocol_version_t {
    /// The version a task's metrics name (``StreamTaskMetrics/negotiatedTLSVersion``, such as
    /// "TLS 1.3"); `nil` for any other text.
    init?(metricsName name: String) {
        let versions: [StreamTLSConfiguration.Version] = [.tls1_0, .tls1_1, .tls1_2, .tls1_3]
        guard let version = versions.first(where: { $0.description == name }) else { return nil }
        self = version.protocolVersion
    }
}

extension tls_ciphersuite_t {
    /// Every suite `tls_ciphersuite_t` names on Darwin.
    static let all: [tls_ciphersuite_t] = [
        .RSA_WITH_3DES_EDE_CBC_SHA,
        .RSA_WITH_AES_128_CBC_SHA,
        .RSA_WITH_AES_256_CBC_SHA,
        .RSA_WITH_AES_128_GCM_SHA256,
        .RSA_WITH_AES_256_GCM_SHA384,
        .RSA_WITH_AES_128_CBC_SHA256,
        .RSA_WITH_AES_256_CBC_SHA256,
        .ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA,
        .ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
        .ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
        .ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
        .ECDHE_RSA_WITH_AES_128_CBC_SHA,
        .ECDHE_RSA_WITH_AES_256_CBC_SHA,
        .ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
        .ECDHE_ECDSA_WITH_AES_256_CBC_SHA384,
        .ECDHE_RSA_WITH_AES_128_CBC_SHA256,
        .ECDHE_RSA_WITH_AES_256_CBC_SHA384,
        .ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        .ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        .ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        .ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        .AES_128_GCM_SHA256,
        .AES_256_GCM_SHA384,
        .CHACHA20_POLY1305_SHA256,
    ]

    /// The suites by the name a task's metrics give them (``StreamTaskMetrics/negotiatedCipherSuite``:
    /// the IANA name, or the number in hexadecimal for a suite the library has no name for).
    private static let byMetricsName = Dictionary(
        uniqueKeysWithValues: all.map { (ServerHelloParser.name(of: $0.rawValue), $0) })

    /// The suite a task's metrics name; `nil` for one that `tls_ciphersuite_t` does not name.
    init?(metricsName name: String) {
        guard let suite = Self.byMetricsName[name] else { return nil }
        self = suite
    }
}
