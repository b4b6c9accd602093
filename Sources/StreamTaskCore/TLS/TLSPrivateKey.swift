//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOSSL

/// A private key in PEM form, for a server certificate or a client certificate.
public struct TLSPrivateKey: Sendable, Hashable {
    let pemBytes: [UInt8]

    /// A key from PEM text (PKCS#8, or the traditional RSA or EC forms).
    public init(pem: String) throws {
        self.pemBytes = Array(pem.utf8)
        _ = try nioKey()
    }

    /// A key from a PEM file.
    public init(pemFile path: String) throws {
        do {
            try self.init(pem: try String(contentsOfFile: path, encoding: .utf8))
        } catch let error as StreamTaskError {
            throw error
        } catch {
            throw StreamTaskError(.tlsConfigurationInvalid, "cannot read \(path): \(error.localizedDescription)")
        }
    }

    func nioKey() throws -> NIOSSLPrivateKey {
        do {
            return try NIOSSLPrivateKey(bytes: pemBytes, format: .pem)
        } catch {
            throw StreamTaskError(.tlsConfigurationInvalid, "not a usable private key: \(error)", underlying: error)
        }
    }
}
