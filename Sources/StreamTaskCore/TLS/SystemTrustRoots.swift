//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The roots behind ``StreamTLSConfiguration/trustsSystemRoots``, with the environment
/// variables that OpenSSL programs honour on Linux.
///
/// - `SSL_CERT_FILE` names a PEM bundle read *instead of* the system's bundle
///   (`/etc/ssl/certs/ca-certificates.crt` and the like), as OpenSSL reads it instead of its
///   default file.
/// - `SSL_CERT_DIR` names directories, separated by `:`, whose certificate files are trusted
///   *as well*, as OpenSSL looks certificates up in them instead of its default directory
///   (which on Linux holds the bundle's certificates again). Files that hold no PEM
///   certificate are skipped.
///
/// Each file and directory is read once per process, the first time a handshake needs it.
enum SystemTrustRoots {
    /// The variables that choose the roots, from the process's environment.
    static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["SSL_CERT_FILE", "SSL_CERT_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// The roots to trust for `environment` (only `SSL_CERT_FILE` and `SSL_CERT_DIR` count),
    /// and what could not be read, in words, for the refusal message.
    static func roots(environment: [String: String]) -> (store: CertificateStore, problems: [String]) {
        var store: CertificateStore
        var problems: [String] = []
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            let loaded = cached(file) { try certificates(inFile: file) }
            store = CertificateStore(loaded.certificates)
            problems += loaded.problem.map { ["SSL_CERT_FILE \(file): \($0)"] } ?? []
        } else {
            store = CertificateStore.systemTrustRoots
        }
        if let directories = environment["SSL_CERT_DIR"] {
            for directory in directories.split(separator: ":").map(String.init) where !directory.isEmpty {
                let loaded = cached("dir:" + directory) { try certificates(inDirectory: directory) }
                store.append(contentsOf: loaded.certificates)
                problems += loaded.problem.map { ["SSL_CERT_DIR \(directory): \($0)"] } ?? []
            }
        }
        return (store, problems)
    }

    private struct Loaded: Sendable {
        var certificates: [Certificate]
        var problem: String?
    }

    private static let cache = NIOLockedValueBox<[String: Loaded]>([:])

    private static func cached(_ key: String, load: () throws -> [Certificate]) -> Loaded {
        if let loaded = cache.withLockedValue({ $0[key] }) { return loaded }
        var loaded: Loaded
        do {
            loaded = Loaded(certificates: try load())
            if loaded.certificates.isEmpty { loaded.problem = "no PEM certificate in it" }
        } catch {
            loaded = Loaded(certificates: [], problem: (error as? StreamTaskError)?.message ?? "\(error)")
        }
        cache.withLockedValue { $0[key] = loaded }
        return loaded
    }

    /// Every certificate of a PEM file.
    static func certificates(inFile path: String) throws -> [Certificate] {
        try TLSCertificate.chain(pemFile: path).map { try Certificate(derEncoded: $0.derBytes) }
    }

    /// The certificates of every PEM file in a directory, following links (hashed names such as
    /// `5ad8a5d6.0` are links to the files).
    static func certificates(inDirectory path: String) throws -> [Certificate] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted().flatMap { name in
            (try? certificates(inFile: path + "/" + name)) ?? []
        }
    }
}
