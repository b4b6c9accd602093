//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// A SOCKS5 `CONNECT` handshake (RFC 1928) with optional username/password authentication
/// (RFC 1929), as a plain value.
///
/// SwiftNIO's SOCKS client (in swift-nio-extras) offers no authentication and has no timeout,
/// so this one is written out; the handler adds the timeout.
struct SOCKS5Handshake: ProxyHandshake {
    /// Where the proxy should connect: a name it resolves, or an address resolved here.
    enum Target: Equatable {
        case name(String, port: Int)
        case address([UInt8], port: Int)
    }

    enum Method: UInt8 {
        case noAuthentication = 0x00
        case usernamePassword = 0x02
        case noAcceptableMethods = 0xFF
    }

    enum AddressType: UInt8 {
        case ipv4 = 0x01
        case domainName = 0x03
        case ipv6 = 0x04
    }

    private enum State {
        case initial
        case awaitingMethod
        case awaitingAuthentication
        case awaitingReply
        case established
    }

    let target: Target
    let credentials: ProxyCredentials?
    private var state = State.initial

    init(target: Target, credentials: ProxyCredentials?) {
        self.target = target
        self.credentials = credentials
    }

    /// A target for `host`: an address when `host` is an IPv4 or IPv6 literal, otherwise the name.
    static func target(host: String, port: Int) -> Target {
        if let bytes = IPAddressBytes.parse(host) { return .address(bytes, port: port) }
        return .name(host, port: port)
    }

    mutating func start() throws(ProxyHandshakeError) -> ByteBuffer {
        // Validate everything up front: a bad request fails before anything is sent.
        _ = try Self.connectRequest(target)
        if let credentials { _ = try Self.authenticationRequest(credentials) }
        state = .awaitingMethod
        return Self.greeting(
            offering: credentials == nil ? [.noAuthentication] : [.noAuthentication, .usernamePassword])
    }

    mutating func receive(_ buffer: inout ByteBuffer) throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        switch state {
        case .initial, .established:
            return .needMoreData
        case .awaitingMethod:
            guard let reply = buffer.readBytes(length: 2) else { return .needMoreData }
            guard reply[0] == 0x05 else {
                throw .malformedReply("expected SOCKS version 5 in the method selection, got \(hex(reply[0]))")
            }
            switch Method(rawValue: reply[1]) {
            case .noAuthentication:
                state = .awaitingReply
                return .send(try Self.connectRequest(target))
            case .usernamePassword where credentials != nil:
                state = .awaitingAuthentication
                return .send(try Self.authenticationRequest(credentials!))
            case .noAcceptableMethods:
                if credentials == nil { throw .authenticationRequired(credentialsSent: false) }
                throw .noAcceptableAuthenticationMethod
            default:
                throw .malformedReply("the proxy chose authentication method \(hex(reply[1])), which was not offered")
            }
        case .awaitingAuthentication:
            guard let reply = buffer.readBytes(length: 2) else { return .needMoreData }
            // RFC 1929 says version 1; some servers answer with the SOCKS version, 5, and
            // clients such as HexChat look at the status alone.
            guard reply[0] == 0x01 || reply[0] == 0x05 else {
                throw .malformedReply("expected version 1 in the authentication reply, got \(hex(reply[0]))")
            }
            guard reply[1] == 0x00 else { throw .authenticationRequired(credentialsSent: true) }
            state = .awaitingReply
            return .send(try Self.connectRequest(target))
        case .awaitingReply:
            guard let length = try Self.replyLength(buffer) else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: length)
            state = .established
            return .established
        }
    }

    // MARK: Messages

    /// `VER NMETHODS METHODS…`
    static func greeting(offering methods: [Method]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeBytes([0x05, UInt8(methods.count)] + methods.map(\.rawValue))
        return buffer
    }

    /// RFC 1929: `VER=1 ULEN UNAME PLEN PASSWD`, each field 1 to 255 bytes.
    static func authenticationRequest(_ credentials: ProxyCredentials) throws(ProxyHandshakeError) -> ByteBuffer {
        let user = Array(credentials.username.utf8)
        let password = Array(credentials.password.utf8)
        // RFC 1929 says 1 to 255 bytes; like curl, an empty password is sent as zero bytes
        // (`socks5://user@proxy`), which servers that check only the user accept.
        guard (1...255).contains(user.count), (0...255).contains(password.count) else {
            throw .invalidRequest("SOCKS5 usernames must be 1 to 255 bytes long, and passwords at most 255")
        }
        var buffer = ByteBuffer()
        buffer.writeBytes([0x01, UInt8(user.count)] + user + [UInt8(password.count)] + password)
        return buffer
    }

    /// `VER=5 CMD=CONNECT RSV=0 ATYP DST.ADDR DST.PORT`
    static func connectRequest(_ target: Target) throws(ProxyHandshakeError) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeBytes([0x05, 0x01, 0x00])
        let port: Int
        switch target {
        case .name(let name, let targetPort):
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw .invalidRequest("a SOCKS5 proxy takes host names of 1 to 255 bytes")
            }
            buffer.writeBytes([AddressType.domainName.rawValue, UInt8(bytes.count)] + bytes)
            port = targetPort
        case .address(let bytes, let targetPort):
            buffer.writeInteger((bytes.count == 4 ? AddressType.ipv4 : AddressType.ipv6).rawValue)
            buffer.writeBytes(bytes)
            port = targetPort
        }
        guard (0...65535).contains(port) else { throw .invalidRequest("the port \(port) is out of range") }
        buffer.writeInteger(UInt16(port))
        return buffer
    }

    /// The length of the complete reply at the start of `buffer`, or `nil` while incomplete.
    /// Throws as soon as the reply code says the request failed.
    static func replyLength(_ buffer: ByteBuffer) throws(ProxyHandshakeError) -> Int? {
        guard let head = buffer.getBytes(at: buffer.readerIndex, length: Swift.min(buffer.readableBytes, 5)),
            head.count >= 2
        else { return nil }
        guard head[0] == 0x05 else {
            throw .malformedReply("expected SOCKS version 5 in the reply, got \(hex(head[0]))")
        }
        guard head[1] == 0x00 else { throw .socksReply(head[1]) }
        guard head.count >= 4 else { return nil }
        let addressLength: Int
        switch AddressType(rawValue: head[3]) {
        case .ipv4: addressLength = 4
        case .ipv6: addressLength = 16
        case .domainName:
            guard head.count >= 5 else { return nil }
            addressLength = 1 + Int(head[4])
        case nil:
            throw .malformedReply("the reply has the unknown address type \(hex(head[3]))")
        }
        let length = 4 + addressLength + 2
        return buffer.readableBytes >= length ? length : nil
    }

    /// RFC 1928's text for each reply code.
    static func replyDescription(_ code: UInt8) -> String {
        switch code {
        case 0x01: return "general SOCKS server failure"
        case 0x02: return "connection not allowed by ruleset"
        case 0x03: return "network unreachable"
        case 0x04: return "host unreachable"
        case 0x05: return "connection refused"
        case 0x06: return "TTL expired"
        case 0x07: return "command not supported"
        case 0x08: return "address type not supported"
        default: return "unassigned reply code \(hex(code))"
        }
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return "0x" + (digits.count == 1 ? "0" + digits : digits)
}
