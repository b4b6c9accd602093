//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Finds the cipher suite a server chose, in the ServerHello of a TLS handshake.
///
/// SwiftNIO SSL does not report the negotiated cipher suite. The ServerHello travels in the
/// clear in every TLS version, so the task reads it off the wire: the raw bytes from the server
/// (as a client) or to the client (as a server) are fed here until the answer is known. It
/// looks at no more than `limit` bytes and then gives up, so a strange peer costs nothing.
struct ServerHelloParser {
    enum Outcome: Equatable {
        case needMoreBytes
        case cipherSuite(UInt16)
        case gaveUp
    }

    private var bytes = ByteBuffer()
    private let limit: Int
    private(set) var outcome = Outcome.needMoreBytes

    init(limit: Int = 16 * 1024) {
        self.limit = limit
    }

    mutating func feed(_ data: ByteBuffer) -> Outcome {
        guard outcome == .needMoreBytes else { return outcome }
        var data = data
        bytes.writeBuffer(&data)
        outcome = parse()
        if outcome == .needMoreBytes && bytes.readableBytes > limit {
            outcome = .gaveUp
        }
        return outcome
    }

    /// Concatenates the payloads of the leading handshake records and reads the first message.
    private func parse() -> Outcome {
        var records = bytes
        var handshake = ByteBuffer()
        while let header = records.readBytes(length: 5) {
            guard header[0] == 22 else { return .gaveUp }  // not a handshake record
            let length = Int(header[3]) << 8 | Int(header[4])
            guard var payload = records.readSlice(length: length) else { break }
            handshake.writeBuffer(&payload)
            if let outcome = readServerHello(handshake) { return outcome }
        }
        return .needMoreBytes
    }

    private func readServerHello(_ handshake: ByteBuffer) -> Outcome? {
        var message = handshake
        guard let type = message.readInteger(as: UInt8.self),
            let high = message.readInteger(as: UInt8.self),
            let low = message.readInteger(as: UInt16.self)
        else { return nil }
        guard type == 2 else { return .gaveUp }  // the first message from a server is its hello
        let length = Int(high) << 16 | Int(low)
        guard var body = message.readSlice(length: length) else { return nil }
        guard body.moveReaderIndexIfPossible(by: 2 + 32),  // legacy_version, random
            let sessionIDLength = body.readInteger(as: UInt8.self),
            body.moveReaderIndexIfPossible(by: Int(sessionIDLength)),
            let suite = body.readInteger(as: UInt16.self)
        else { return .gaveUp }
        return .cipherSuite(suite)
    }

    /// The IANA name of a cipher suite, or its number in hexadecimal for one not listed.
    static func name(of suite: UInt16) -> String {
        if let name = names[suite] { return name }
        let digits = String(suite, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    private static let names: [UInt16: String] = [
        0x1301: "TLS_AES_128_GCM_SHA256",
        0x1302: "TLS_AES_256_GCM_SHA384",
        0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA",
        0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
    ]
}

extension ByteBuffer {
    fileprivate mutating func moveReaderIndexIfPossible(by count: Int) -> Bool {
        guard readableBytes >= count else { return false }
        moveReaderIndex(forwardBy: count)
        return true
    }
}
