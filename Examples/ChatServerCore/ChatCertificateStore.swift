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
import StreamTaskKit
import X509

/// The chat server's STARTTLS certificate: the one given on the command line, or a self-signed
/// one made on first run and kept in a directory, so that its fingerprint, which clients pin,
/// stays the same from run to run.
public struct ChatCertificateStore: Sendable {
    /// Where the self-signed certificate (`cert.pem`) and its key (`key.pem`) live.
    public let directory: URL

    /// A store in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The default directory: `$XDG_STATE_HOME/streamtaskkit-chat`, or
    /// `~/.local/state/streamtaskkit-chat`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            return URL(fileURLWithPath: state).appendingPathComponent("streamtaskkit-chat")
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local/state/streamtaskkit-chat")
    }

    /// The certificate file.
    public var certificateFile: URL { directory.appendingPathComponent("cert.pem") }
    /// The private key file.
    public var privateKeyFile: URL { directory.appendingPathComponent("key.pem") }

    /// The stored certificate and key, made and stored first if there are none yet.
    ///
    /// - Parameter commonName: the subject's name, and a DNS name in the certificate, for a new
    ///   certificate.
    /// - Returns: the server configuration and whether the certificate was made just now.
    public func loadOrCreate(commonName: String) throws -> (tls: StreamTLSConfiguration, created: Bool) {
        let manager = FileManager.default
        var created = false
        if !manager.fileExists(atPath: certificateFile.path) || !manager.fileExists(atPath: privateKeyFile.path) {
            try create(commonName: commonName)
            created = true
        }
        let tls = try StreamTLSConfiguration.server(
            certificatePEMFile: certificateFile.path, privateKeyPEMFile: privateKeyFile.path)
        return (tls, created)
    }

    /// Makes a self-signed P-256 certificate valid for ten years and writes it and its key (the
    /// key readable by its owner only).
    func create(commonName: String) throws {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let name = try DistinguishedName { CommonName(commonName) }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([.dnsName(commonName), .dnsName("localhost")])
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-60 * 60),
            notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 60 * 60),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Created readable by its owner only, never world-readable even for a moment.
        try? FileManager.default.removeItem(at: privateKeyFile)
        guard
            FileManager.default.createFile(
                atPath: privateKeyFile.path, contents: Data(key.pemRepresentation.utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: privateKeyFile.path])
        }
        try Data(certificate.serializeAsPEM().pemString.utf8).write(to: certificateFile, options: .atomic)
    }
}
