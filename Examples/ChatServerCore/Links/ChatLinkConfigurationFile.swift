//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation

/// The peers of a configuration file written as ngIRCd's: each `[Server]` block is one peer,
/// with ngIRCd's keys and their meaning (`Name`, `Host`, `Port`, `MyPassword` (the password
/// the peer must send), `PeerPassword` (the one this server sends), `Passive`, `SSLConnect`) and two of this server's own for a TLS link: `SSLFingerprint =
/// sha256:<hex>` (a pin) or `SSLCAFile = <PEM file>` (a private CA). Other sections are
/// skipped, so an `ngircd.conf` can be read as it is; `;` and `#` start comments.
public enum ChatLinkConfigurationFile {
    /// Why a file could not be read: the line and what is wrong with it.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The line, counting from 1.
        public let line: Int
        /// What is wrong.
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Keys of ngIRCd's `[Server]` block that this server reads and ignores.
    static let ignoredKeys: Set<String> = ["group", "servicemask", "bind"]

    /// The peers in `text`.
    public static func peers(in text: String) throws -> [ChatLinkPeer] {
        var peers: [ChatLinkPeer] = []
        var block: [String: (value: String, line: Int)]?
        var blockLine = 0
        func finish() throws {
            if let current = block { peers.append(try peer(from: current, at: blockLine)) }
            block = nil
        }
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                try finish()
                guard line.hasSuffix("]") else {
                    throw ParseError(line: number, reason: "a section name must end with ]")
                }
                if line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces).lowercased() == "server" {
                    block = [:]
                    blockLine = number
                }
                continue
            }
            guard block != nil else { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(line: number, reason: "expected Key = Value")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            block?[key] = (value, number)
        }
        try finish()
        return peers
    }

    /// The peers of the file at `path`.
    public static func peers(contentsOf path: String) throws -> [ChatLinkPeer] {
        try peers(in: String(contentsOfFile: path, encoding: .utf8))
    }

    private static func peer(from block: [String: (value: String, line: Int)], at line: Int) throws -> ChatLinkPeer {
        let known: Set<String> = [
            "name", "host", "port", "mypassword", "peerpassword", "passive", "sslconnect", "sslverify",
            "sslfingerprint", "sslcafile",
        ]
        if let unknown = block.first(where: { !known.contains($0.key) && !ignoredKeys.contains($0.key) }) {
            throw ParseError(line: unknown.value.line, reason: "unknown key in [Server]: \(unknown.key)")
        }
        func value(_ key: String) -> String? { block[key]?.value }
        func yes(_ key: String) throws -> Bool {
            guard let entry = block[key] else { return false }
            switch entry.value.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: throw ParseError(line: entry.line, reason: "\(key) must be yes or no")
            }
        }
        guard let name = value("name"), !name.isEmpty else {
            throw ParseError(line: line, reason: "a [Server] block needs a Name")
        }
        guard let mine = value("mypassword"), let theirs = value("peerpassword"), !mine.isEmpty, !theirs.isEmpty else {
            throw ParseError(line: line, reason: "[Server] \(name) needs MyPassword and PeerPassword")
        }
        // ngIRCd's meaning: MyPassword is this server's own, which the peer sends; PeerPassword
        // the peer's, which this server sends. The same block works on both sides of a link
        // with the two swapped, as in ngIRCd.
        var peer = ChatLinkPeer(name: name, sentPassword: theirs, expectedPassword: mine)
        if let port = block["port"] {
            guard let number = Int(port.value), (1...65535).contains(number) else {
                throw ParseError(line: port.line, reason: "Port must be between 1 and 65535")
            }
            guard let host = value("host"), !host.isEmpty else {
                throw ParseError(line: port.line, reason: "[Server] \(name) has a Port but no Host")
            }
            if try !yes("passive") {
                peer.host = host
                peer.port = number
            }
        }
        if try yes("sslconnect") {
            if let pin = block["sslfingerprint"] {
                guard let digest = ChatServiceRecord.parseFingerprint(pin.value) else {
                    throw ParseError(line: pin.line, reason: "SSLFingerprint must be sha256: and 64 hex digits")
                }
                peer.security = .pinned(sha256: digest)
            } else if let file = value("sslcafile") {
                peer.security = .certificateAuthority(pemFile: file)
            } else if block["sslverify"] != nil, try !yes("sslverify") {
                // ngIRCd's SSLVerify = no accepts any certificate; this server always checks one.
                throw ParseError(
                    line: block["sslverify"]?.line ?? line,
                    reason: "SSLVerify = no is not supported: give SSLFingerprint (a pin) or SSLCAFile")
            } else {
                peer.security = .verified
            }
        }
        return peer
    }
}
