//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// The names a task's metrics give TLS versions and cipher suites, read back as Apple's
/// `tls_protocol_version_t` and `tls_ciphersuite_t`.
@Suite struct TLSCipherSuiteNameTests {
    /// Every suite in BoringSSL's cipher table that a task can negotiate (the PSK suites need a
    /// pre-shared key, which the library never sets), by IANA name and number, with Apple's case.
    static let negotiable: [(iana: String, number: UInt16, apple: tls_ciphersuite_t)] = [
        ("TLS_RSA_WITH_3DES_EDE_CBC_SHA", 0x000A, .RSA_WITH_3DES_EDE_CBC_SHA),
        ("TLS_RSA_WITH_AES_128_CBC_SHA", 0x002F, .RSA_WITH_AES_128_CBC_SHA),
        ("TLS_RSA_WITH_AES_256_CBC_SHA", 0x0035, .RSA_WITH_AES_256_CBC_SHA),
        ("TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009C, .RSA_WITH_AES_128_GCM_SHA256),
        ("TLS_RSA_WITH_AES_256_GCM_SHA384", 0x009D, .RSA_WITH_AES_256_GCM_SHA384),
        ("TLS_AES_128_GCM_SHA256", 0x1301, .AES_128_GCM_SHA256),
        ("TLS_AES_256_GCM_SHA384", 0x1302, .AES_256_GCM_SHA384),
        ("TLS_CHACHA20_POLY1305_SHA256", 0x1303, .CHACHA20_POLY1305_SHA256),
        ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC009, .ECDHE_ECDSA_WITH_AES_128_CBC_SHA),
        ("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", 0xC00A, .ECDHE_ECDSA_WITH_AES_256_CBC_SHA),
        ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC013, .ECDHE_RSA_WITH_AES_128_CBC_SHA),
        ("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", 0xC014, .ECDHE_RSA_WITH_AES_256_CBC_SHA),
        ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xC023, .ECDHE_ECDSA_WITH_AES_128_CBC_SHA256),
        ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 0xC027, .ECDHE_RSA_WITH_AES_128_CBC_SHA256),
        ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02B, .ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
        ("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 0xC02C, .ECDHE_ECDSA_WITH_AES_256_GCM_SHA384),
        ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xC02F, .ECDHE_RSA_WITH_AES_128_GCM_SHA256),
        ("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 0xC030, .ECDHE_RSA_WITH_AES_256_GCM_SHA384),
        ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA8, .ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
        ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA9, .ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256),
    ]

    @Test func everySuiteBoringSSLNegotiatesMapsFromTheNameTheMetricsGiveIt() {
        for suite in Self.negotiable {
            let name = ServerHelloParser.name(of: suite.number)
            // The metrics give the IANA name, or the number for a suite without one listed.
            #expect(name == suite.iana || name == String(format: "0x%04X", suite.number), "\(name)")
            #expect(tls_ciphersuite_t(metricsName: name) == suite.apple, "\(name)")
            #expect(suite.apple.rawValue == suite.number, "\(suite.iana)")
        }
    }

    @Test func everyNamedSuiteMapsToTheSuiteOfItsNumber() {
        var named = 0
        for number in UInt16.min...UInt16.max {
            let name = ServerHelloParser.name(of: number)
            guard !name.hasPrefix("0x") else { continue }
            named += 1
            #expect(tls_ciphersuite_t(metricsName: name)?.rawValue == number, "\(name)")
        }
        #expect(named >= 17)
    }

    @Test func appleSuitesAreDistinctAndKnown() {
        #expect(Set(tls_ciphersuite_t.all.map(\.rawValue)).count == 26)
        for suite in tls_ciphersuite_t.all {
            #expect(tls_ciphersuite_t(metricsName: ServerHelloParser.name(of: suite.rawValue)) == suite)
        }
    }

    @Test(arguments: [
        "0x1305",  // TLS_AES_128_CCM_8_SHA256: Apple has no case for it
        "0xCCAC",  // TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256
        "0x008C",  // TLS_PSK_WITH_AES_128_CBC_SHA
        "TLS_NOT_A_SUITE", "tls_aes_128_gcm_sha256", "AES_128_GCM_SHA256", "",
    ])
    func unknownNamesMapToNil(name: String) {
        #expect(tls_ciphersuite_t(metricsName: name) == nil)
    }

    @Test func versionNamesMapToAppleVersions() {
        #expect(tls_protocol_version_t(metricsName: "TLS 1.3") == .TLSv13)
        #expect(tls_protocol_version_t(metricsName: "TLS 1.2") == .TLSv12)
        #expect(tls_protocol_version_t(metricsName: "TLS 1.1") == .TLSv11)
        #expect(tls_protocol_version_t(metricsName: "TLS 1.0") == .TLSv10)
        #expect(tls_protocol_version_t(metricsName: "TLSv1.3") == nil)
        #expect(tls_protocol_version_t(metricsName: "") == nil)
    }
}
