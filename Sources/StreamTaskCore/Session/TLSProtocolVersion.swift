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
