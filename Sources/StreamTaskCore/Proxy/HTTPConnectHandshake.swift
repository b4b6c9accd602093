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

/// An HTTP `CONNECT` handshake (RFC 9110, section 9.3.6), as a plain value.
///
/// SwiftNIO's own CONNECT handler sends no `Host` header and does not bracket IPv6 targets, and
/// its HTTP decoder drops the bytes after the reply when the end of stream comes in the same
/// read; so this one is written out. A reply head is only a status line and header lines, whose
/// content a successful `CONNECT` ignores, so it is read up to its empty line, within
/// ``maximumHeadLength`` bytes: a proxy that sends an endless header fails the handshake instead of
/// growing memory. Whatever follows the empty line is the target's.
struct HTTPConnectHandshake: ProxyHandshake {
    /// Bytes of reply heads consumed so far (1xx heads and the final one).
    var headBytes = 0
    /// The longest reply head accepted, status line and headers together.
    static let maximumHeadLength = 16 * 1024

    let host: String
    let port: Int
    let credentials: ProxyCredentials?

    /// `CONNECT host:port HTTP/1.1`, with `Host` and, given credentials, `Proxy-Authorization`.
    static func request(host: String, port: Int, credentials: ProxyCredentials?) throws(ProxyHandshakeError) -> String {
        guard !host.isEmpty,
            !host.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else {
            throw .invalidRequest("the host name \"\(host)\" cannot be sent in a CONNECT request")
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var lines = ["CONNECT \(authority) HTTP/1.1", "Host: \(authority)"]
        if let credentials {
            // RFC 7617: the user-id cannot contain a colon, and neither part a control character.
            let controls = { (text: String) in text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
            guard !credentials.username.contains(":"), !controls(credentials.username), !controls(credentials.password)
            else {
                throw .invalidRequest(
                    "the proxy username cannot contain a colon or control characters for Basic authentication")
            }
            let token = Data("\(credentials.username):\(credentials.password)".utf8).base64EncodedString()
            lines.append("Proxy-Authorization: Basic \(token)")
        }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    func start() throws(ProxyHandshakeError) -> ByteBuffer {
        ByteBuffer(string: try Self.request(host: host, port: port, credentials: credentials))
    }

    mutating func receive(_ buffer: inout ByteBuffer) throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        while true {
            // The status line is checked as soon as it is in: what is not HTTP fails at once
            // rather than at the timeout.
            let (statusLine, head) = Self.headBounds(buffer)
            guard let statusLine else { return try needMore(buffer) }
            let (code, reason) = try Self.status(of: buffer.getString(at: buffer.readerIndex, length: statusLine) ?? "")
            guard let headEnd = head else { return try needMore(buffer) }
            buffer.moveReaderIndex(forwardBy: headEnd)
            // The limit covers every head the proxy sends, informational ones included: a
            // proxy sending 1xx heads forever must not be read forever.
            headBytes += headEnd
            if headBytes > Self.maximumHeadLength { throw .replyTooLarge(limit: Self.maximumHeadLength) }
            switch code {
            case 100..<200:
                continue  // informational; the final reply follows
            case 200..<300:
                return .established
            case 407, 401:
                // 407 is the proxy's own "authenticate first"; a proxy's 401 (tinyproxy sends
                // one for wrong credentials) can only be about the proxy too: no tunnel is open.
                let status = reason.isEmpty ? "\(code)" : "\(code) \(reason)"
                throw .authenticationRequired(credentialsSent: credentials != nil, status: status)
            default:
                throw .httpStatus(code, reason: reason)
            }
        }
    }

    /// The head at the start of `buffer`, as far as it has arrived within
    /// ``maximumHeadLength``: the length of its status line (without its line end) once that
    /// line is complete, and the head's length (through its empty line) once it is.
    ///
    /// Lines end in CRLF, or in a bare LF as RFC 9112 (section 2.2) lets a recipient accept:
    /// some proxies send those.
    static func headBounds(_ buffer: ByteBuffer) -> (statusLine: Int?, head: Int?) {
        let count = min(maximumHeadLength, buffer.readableBytes)
        return buffer.withUnsafeReadableBytes { raw -> (Int?, Int?) in
            let bytes = raw.prefix(count)
            var statusLine: Int?
            var lineStart = 0
            while let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let carriageReturn = newline > lineStart && bytes[newline - 1] == UInt8(ascii: "\r") ? 1 : 0
                let length = newline - lineStart - carriageReturn
                if statusLine == nil {
                    statusLine = length
                } else if length == 0 {
                    return (statusLine, newline + 1)
                }
                lineStart = newline + 1
            }
            return (statusLine, nil)
        }
    }

    private func needMore(_ buffer: ByteBuffer) throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        if headBytes + buffer.readableBytes >= Self.maximumHeadLength {
            throw .replyTooLarge(limit: Self.maximumHeadLength)
        }
        return .needMoreData
    }

    /// The code and reason of a status line such as `HTTP/1.1 200 Connection established`.
    static func status(of line: String) throws(ProxyHandshakeError) -> (code: Int, reason: String) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
            parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let code = Int(parts[1])
        else {
            let shown = line.prefix(60).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }
                .joined()
            throw .malformedReply("expected an HTTP status line, got \"\(shown)\"")
        }
        // The reason goes into error messages and logs: printable ASCII only, and short.
        let reason =
            parts.count == 3
            ? parts[2].prefix(100).unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F ? String($0) : "?"
            }.joined() : ""
        return (code, reason)
    }
}
