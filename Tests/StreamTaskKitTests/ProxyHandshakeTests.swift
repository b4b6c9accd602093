//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// The CONNECT and SOCKS5 handshakes as plain values: what they send, and what they make of
/// each reply.
@Suite struct ProxyHandshakeTests {
    // MARK: HTTP CONNECT

    @Test func connectRequestHasAHostHeader() throws {
        let request = try HTTPConnectHandshake.request(host: "example.com", port: 7, credentials: nil)
        #expect(request == "CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
    }

    @Test func connectRequestBracketsIPv6Targets() throws {
        let request = try HTTPConnectHandshake.request(host: "2001:db8::1", port: 443, credentials: nil)
        #expect(request == "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n")
    }

    @Test func connectRequestSendsBasicCredentials() throws {
        let credentials = ProxyCredentials(username: "Aladdin", password: "open sesame")
        let request = try HTTPConnectHandshake.request(host: "127.0.0.1", port: 25, credentials: credentials)
        #expect(
            request
                == "CONNECT 127.0.0.1:25 HTTP/1.1\r\nHost: 127.0.0.1:25\r\n"
                + "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n"
        )
    }

    @Test(arguments: ["evil.com\r\nX-Injected: 1", "a b", ""])
    func connectRequestRefusesHostsThatWouldBreakTheRequest(host: String) {
        #expect(throws: ProxyHandshakeError.self) {
            try HTTPConnectHandshake.request(host: host, port: 1, credentials: nil)
        }
    }

    @Test func connectRequestRefusesAColonInTheUsername() {
        #expect(throws: ProxyHandshakeError.self) {
            try HTTPConnectHandshake.request(
                host: "h", port: 1, credentials: ProxyCredentials(username: "a:b", password: "c"))
        }
    }

    private func connectReply(
        _ text: String, credentials: ProxyCredentials? = nil
    ) throws(ProxyHandshakeError)
        -> (ProxyHandshakeStep, String)
    {
        var handshake = HTTPConnectHandshake(host: "h", port: 1, credentials: credentials)
        var buffer = ByteBuffer(string: text)
        let step = try handshake.receive(&buffer)
        return (step, String(buffer: buffer))
    }

    @Test func a2xxReplyOpensTheTunnelAndLeavesTheTargetsBytes() throws {
        let (step, rest) = try connectReply("HTTP/1.1 200 Connection established\r\nVia: x\r\n\r\n220 ready\r\n")
        #expect(step == .established)
        #expect(rest == "220 ready\r\n")
        let (bare, none) = try connectReply("HTTP/1.0 204\r\n\r\n")
        #expect(bare == .established)
        #expect(none.isEmpty)
    }

    @Test func informationalRepliesAreSkipped() throws {
        let (step, rest) = try connectReply("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nhi")
        #expect(step == .established)
        #expect(rest == "hi")
    }

    @Test func anIncompleteHeadAsksForMore() throws {
        var handshake = HTTPConnectHandshake(host: "h", port: 1, credentials: nil)
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nVia: x\r\n")
        #expect(try handshake.receive(&buffer) == .needMoreData)
        buffer.writeString("\r\nabc")
        #expect(try handshake.receive(&buffer) == .established)
        #expect(String(buffer: buffer) == "abc")
    }

    /// RFC 9112, section 2.2: a recipient may take a bare LF for a line end.
    @Test(arguments: [
        "HTTP/1.1 200 OK\nVia: x\n\nabc",
        "HTTP/1.1 200 OK\r\nVia: x\n\r\nabc",
        "HTTP/1.0 200 Connection established\n\nabc",
        "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\n\nabc",
    ])
    func repliesWithBareLFLineEndsOpenTheTunnel(reply: String) throws {
        let (step, rest) = try connectReply(reply)
        #expect(step == .established)
        #expect(rest == "abc")
    }

    @Test func aBareLFHeadArrivingInPiecesAsksForMoreUntilItsEmptyLine() throws {
        var handshake = HTTPConnectHandshake(host: "h", port: 1, credentials: nil)
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK")
        #expect(try handshake.receive(&buffer) == .needMoreData)
        buffer.writeString("\nVia: x\n")
        #expect(try handshake.receive(&buffer) == .needMoreData)
        buffer.writeString("\r")
        #expect(try handshake.receive(&buffer) == .needMoreData)
        buffer.writeString("\nabc")
        #expect(try handshake.receive(&buffer) == .established)
        #expect(String(buffer: buffer) == "abc")
        // A status line of a bare LF refusal keeps its reason without the line end.
        #expect(throws: ProxyHandshakeError.httpStatus(403, reason: "Forbidden")) {
            try connectReply("HTTP/1.1 403 Forbidden\n\n")
        }
    }

    @Test func status407And401AreAuthenticationRequired() {
        let required = ProxyHandshakeError.authenticationRequired(
            credentialsSent: false, status: "407 Proxy Authentication Required")
        #expect(throws: required) { try connectReply("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n") }
        let rejected = ProxyHandshakeError.authenticationRequired(credentialsSent: true, status: "401 Unauthorized")
        #expect(throws: rejected) {
            try connectReply("HTTP/1.0 401 Unauthorized\r\n\r\n", credentials: .init(username: "u", password: "p"))
        }
    }

    @Test func otherStatusesKeepCodeAndReason() {
        #expect(throws: ProxyHandshakeError.httpStatus(403, reason: "Forbidden")) {
            try connectReply("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        }
        #expect(throws: ProxyHandshakeError.httpStatus(502, reason: "")) { try connectReply("HTTP/1.1 502\r\n\r\n") }
    }

    @Test(arguments: ["SSH-2.0-OpenSSH_9.2\r\n", "HTTP/1.1 2000 OK\r\n", "\u{05}\u{00}\r\n", "ICY 200 OK\r\n"])
    func garbageFailsAsSoonAsItsFirstLineIsIn(reply: String) {
        #expect {
            try connectReply(reply)
        } throws: { error in
            if case .malformedReply = error as? ProxyHandshakeError { return true }
            return false
        }
    }

    @Test func aHeadPastTheLimitFails() {
        let endless =
            "HTTP/1.1 200 OK\r\nX-Endless: " + String(repeating: "a", count: HTTPConnectHandshake.maximumHeadLength)
        #expect(throws: ProxyHandshakeError.replyTooLarge(limit: HTTPConnectHandshake.maximumHeadLength)) {
            try connectReply(endless)
        }
    }

    // MARK: SOCKS5

    private func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

    @Test func greetingOffersUsernamePasswordOnlyWithCredentials() throws {
        var plain = SOCKS5Handshake(target: .name("h", port: 1), credentials: nil)
        #expect(bytes(try plain.start()) == [0x05, 0x01, 0x00])
        var authenticated = SOCKS5Handshake(
            target: .name("h", port: 1), credentials: .init(username: "u", password: "p"))
        #expect(bytes(try authenticated.start()) == [0x05, 0x02, 0x00, 0x02])
    }

    @Test func connectRequestsForEachAddressType() throws {
        #expect(
            bytes(try SOCKS5Handshake.connectRequest(.name("example.com", port: 443)))
                == [0x05, 0x01, 0x00, 0x03, 11] + Array("example.com".utf8) + [0x01, 0xBB]
        )
        #expect(
            bytes(try SOCKS5Handshake.connectRequest(SOCKS5Handshake.target(host: "127.0.0.1", port: 7)))
                == [0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1, 0x00, 0x07]
        )
        #expect(
            bytes(try SOCKS5Handshake.connectRequest(SOCKS5Handshake.target(host: "::1", port: 65535)))
                == [0x05, 0x01, 0x00, 0x04] + [UInt8](repeating: 0, count: 15) + [1, 0xFF, 0xFF]
        )
        #expect(throws: ProxyHandshakeError.self) {
            try SOCKS5Handshake.connectRequest(.name(String(repeating: "a", count: 256), port: 1))
        }
    }

    @Test func authenticationRequestFollowsRFC1929() throws {
        let request = try SOCKS5Handshake.authenticationRequest(.init(username: "joe", password: "pw"))
        #expect(bytes(request) == [0x01, 3] + Array("joe".utf8) + [2] + Array("pw".utf8))
        #expect(throws: ProxyHandshakeError.self) {
            try SOCKS5Handshake.authenticationRequest(
                .init(username: String(repeating: "u", count: 256), password: "p"))
        }
        #expect(throws: ProxyHandshakeError.self) {
            try SOCKS5Handshake.authenticationRequest(
                .init(username: "u", password: String(repeating: "p", count: 256)))
        }
        #expect(throws: ProxyHandshakeError.self) {
            try SOCKS5Handshake.authenticationRequest(.init(username: "", password: "p"))
        }
        // `socks5://user@proxy`: an empty password goes as zero bytes, as curl sends it.
        let empty = try SOCKS5Handshake.authenticationRequest(.init(username: "u", password: ""))
        #expect(bytes(empty) == [0x01, 1, UInt8(ascii: "u"), 0])
    }

    /// Feeds `replies` one by one and returns what the handshake answered to each.
    private func socks(
        _ replies: [[UInt8]],
        credentials: ProxyCredentials? = nil,
        leftover: inout [UInt8]
    ) throws(ProxyHandshakeError) -> [ProxyHandshakeStep] {
        var handshake = SOCKS5Handshake(target: .name("target", port: 80), credentials: credentials)
        _ = try handshake.start()
        var steps: [ProxyHandshakeStep] = []
        var buffer = ByteBuffer()
        for reply in replies {
            buffer.writeBytes(reply)
            steps.append(try handshake.receive(&buffer))
        }
        leftover = Array(buffer.readableBytesView)
        return steps
    }

    private static let success: [UInt8] = [0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90]

    @Test func handshakeWithoutAuthentication() throws {
        var leftover: [UInt8] = []
        let steps = try socks([[0x05, 0x00], Self.success + Array("hello".utf8)], leftover: &leftover)
        #expect(steps == [.send(try SOCKS5Handshake.connectRequest(.name("target", port: 80))), .established])
        #expect(leftover == Array("hello".utf8))
    }

    @Test func handshakeWithUsernameAndPassword() throws {
        var leftover: [UInt8] = []
        let credentials = ProxyCredentials(username: "u", password: "p")
        let steps = try socks(
            [[0x05, 0x02], [0x01, 0x00], Self.success], credentials: credentials, leftover: &leftover)
        #expect(
            steps == [
                .send(try SOCKS5Handshake.authenticationRequest(credentials)),
                .send(try SOCKS5Handshake.connectRequest(.name("target", port: 80))),
                .established,
            ]
        )
        #expect(leftover.isEmpty)
    }

    /// RFC 1929 says version 1, but some servers answer with the SOCKS version.
    @Test func anAuthenticationReplyWithVersion5IsTakenAndAnyOtherVersionIsNot() throws {
        var leftover: [UInt8] = []
        let credentials = ProxyCredentials(username: "u", password: "p")
        let steps = try socks(
            [[0x05, 0x02], [0x05, 0x00], Self.success], credentials: credentials, leftover: &leftover)
        #expect(steps.last == .established)
        #expect(throws: ProxyHandshakeError.authenticationRequired(credentialsSent: true)) {
            try socks([[0x05, 0x02], [0x05, 0x01]], credentials: credentials, leftover: &leftover)
        }
        #expect {
            try socks([[0x05, 0x02], [0x02, 0x00]], credentials: credentials, leftover: &leftover)
        } throws: { error in
            if case .malformedReply = error as? ProxyHandshakeError { return true }
            return false
        }
    }

    @Test func repliesArriveInPieces() throws {
        var leftover: [UInt8] = []
        // A domain-name bound address, split at every awkward place.
        let reply: [UInt8] = [0x05, 0x00, 0x00, 0x03, 4] + Array("host".utf8) + [0, 80]
        let steps = try socks(
            [[0x05], [0x00], Array(reply[0..<1]), Array(reply[1..<4]), Array(reply[4..<6]), Array(reply[6...]) + [42]],
            leftover: &leftover)
        #expect(steps.last == .established)
        #expect(steps.dropLast().allSatisfy { $0 != .established })
        #expect(leftover == [42])
    }

    @Test func wrongCredentialsAndMissingOnes() {
        var leftover: [UInt8] = []
        #expect(throws: ProxyHandshakeError.authenticationRequired(credentialsSent: true)) {
            try socks(
                [[0x05, 0x02], [0x01, 0x01]], credentials: .init(username: "u", password: "bad"), leftover: &leftover)
        }
        #expect(throws: ProxyHandshakeError.authenticationRequired(credentialsSent: false)) {
            try socks([[0x05, 0xFF]], leftover: &leftover)
        }
        #expect(throws: ProxyHandshakeError.noAcceptableAuthenticationMethod) {
            try socks([[0x05, 0xFF]], credentials: .init(username: "u", password: "p"), leftover: &leftover)
        }
        // A method that was not offered.
        #expect(throws: ProxyHandshakeError.self) { try socks([[0x05, 0x02]], leftover: &leftover) }
    }

    @Test(arguments: UInt8(1)...UInt8(9))
    func everyFailureReplyCodeIsReported(code: UInt8) {
        var leftover: [UInt8] = []
        #expect(throws: ProxyHandshakeError.socksReply(code)) {
            try socks([[0x05, 0x00], [0x05, code]], leftover: &leftover)
        }
        #expect(!SOCKS5Handshake.replyDescription(code).isEmpty)
    }

    @Test func garbageRepliesAreMalformed() {
        var leftover: [UInt8] = []
        for replies in [[[0x04, 0x00]], [[0x05, 0x00], [0x05, 0x00, 0x00, 0x09]], [[0x48, 0x54]]] as [[[UInt8]]] {
            #expect {
                try socks(replies, leftover: &leftover)
            } throws: { error in
                if case .malformedReply = error as? ProxyHandshakeError { return true }
                return false
            }
        }
    }
}
