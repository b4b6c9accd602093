//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskKit

/// TLS bulk transfer after STARTTLS: a plaintext go-ahead, both sides upgrade, then `total`
/// bytes in 64 KiB writes from the client, read with `readData(ofMinLength: 1, maxLength: 65536, …)`.
/// Returns bytes per second of the transfer after the handshake.
enum TLSBulk {
    static func library(total: Int, certificate: String, key: String) async throws -> Double {
        let serverTLS = try StreamTLSConfiguration.server(certificatePEMFile: certificate, privateKeyPEMFile: key)
        let clientTLS = StreamTLSConfiguration(
            certificateVerification: .noHostnameVerification,
            trustsSystemRoots: false,
            additionalTrustRoots: [try TLSCertificate(pemFile: certificate)])
        let session = benchSession(tls: clientTLS)
        let start = now()
        let rate = try await LibraryPair.with(session: session) { pair in
            try await upgrade(pair: pair, serverTLS: serverTLS)
            note("tls: connected and upgraded in \(Double(now() - start) / 1e6) ms")
            return try await Bulk.transfer(total: total, pair: pair, placement: .eventLoop)
        }
        note("tls: done, closed, in \(Double(now() - start) / 1e6) ms")
        return rate
    }

    /// The STARTTLS exchange: a line, a go-ahead, then both sides start TLS.
    static func upgrade(pair: LibraryPair, serverTLS: StreamTLSConfiguration) async throws {
        let line = Data("\r\n".utf8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await pair.server.readData(upToAndIncluding: line, maxLength: 64, timeout: 10)
                try await pair.server.write(Data("OK go ahead\r\n".utf8), timeout: 10)
                try await pair.server.startTLS(asServerWith: serverTLS, timeout: 10)
            }
            group.addTask {
                try await pair.client.write(Data("STARTTLS\r\n".utf8), timeout: 10)
                _ = try await pair.client.readData(upToAndIncluding: line, maxLength: 64, timeout: 10)
                try await pair.client.startTLS(timeout: 10)
            }
            try await group.waitForAll()
        }
    }
}
