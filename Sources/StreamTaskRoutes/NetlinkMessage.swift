//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One rtnetlink message, decoded as far as the route monitor needs it.
///
/// Decoding is total: any byte string either decodes or throws a ``NetlinkParseError``; no
/// input makes it trap or read out of bounds (the input comes from the kernel, but the parser is
/// fuzzed as if it came from anyone). Multi-byte fields are in host byte order, as netlink sends
/// them.
enum NetlinkMessage: Equatable, Sendable {
    /// RTM_NEWROUTE / RTM_DELROUTE, and the kernel's answer to RTM_GETROUTE.
    case route(Route, deleted: Bool)
    /// RTM_NEWADDR / RTM_DELADDR.
    case address(Address, deleted: Bool)
    /// RTM_NEWLINK / RTM_DELLINK.
    case link(Link, deleted: Bool)
    /// NLMSG_DONE: the end of a dump.
    case done
    /// NLMSG_ERROR: `code` is 0 for an acknowledgement, a negative errno otherwise.
    case error(code: Int32)
    /// Any other type, skipped.
    case other(type: UInt16)

    struct Route: Equatable, Sendable {
        var family: UInt8
        var destinationPrefixLength: UInt8
        var table: UInt32
        var destination: RouteAddress?
        var gateway: RouteAddress?
        var preferredSource: RouteAddress?
        var outputInterface: UInt32?
        var priority: UInt32?
    }

    struct Address: Equatable, Sendable {
        var family: UInt8
        var prefixLength: UInt8
        var interfaceIndex: UInt32
        /// IFA_LOCAL when present (on point-to-point links IFA_ADDRESS is the peer's), else
        /// IFA_ADDRESS.
        var address: RouteAddress?
    }

    struct Link: Equatable, Sendable {
        var interfaceIndex: UInt32
        var flags: UInt32
        var name: String?

        /// Administratively up and with a carrier (IFF_UP and IFF_RUNNING).
        var isUp: Bool { flags & Netlink.linkUp != 0 && flags & Netlink.linkRunning != 0 }
    }
}

/// Why bytes did not decode as netlink messages, and where.
struct NetlinkParseError: Error, Equatable, CustomStringConvertible {
    enum Reason: Equatable, Sendable {
        /// Fewer bytes than a header, or than the header's length says.
        case truncated
        /// A header length smaller than the header itself.
        case badMessageLength
        /// A fixed-size body (rtmsg, ifaddrmsg, ifinfomsg, nlmsgerr) shorter than its struct.
        case shortBody
        /// An attribute whose length is below 4 or runs past its message.
        case badAttributeLength
        /// An address attribute that is neither 4 nor 16 bytes, or an integer of the wrong size.
        case badAttributeValue
    }

    var reason: Reason
    /// The offset in the input where the problem was found.
    var offset: Int

    var description: String { "malformed netlink data at byte \(offset): \(reason)" }
}

/// One decoded message with its header fields.
struct NetlinkEnvelope: Equatable, Sendable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    var message: NetlinkMessage
}

extension NetlinkMessage {
    /// Decodes every message in one datagram.
    static func decode(_ bytes: [UInt8]) throws(NetlinkParseError) -> [NetlinkEnvelope] {
        var reader = NetlinkReader(bytes: bytes, start: 0, end: bytes.count)
        var messages: [NetlinkEnvelope] = []
        while reader.remaining > 0 {
            let start = reader.offset
            guard reader.remaining >= Netlink.headerLength else { throw .init(reason: .truncated, offset: start) }
            let length = Int(try reader.u32())
            let type = try reader.u16()
            let flags = try reader.u16()
            let sequence = try reader.u32()
            _ = try reader.u32()  // the sender's port ID
            guard length >= Netlink.headerLength else { throw .init(reason: .badMessageLength, offset: start) }
            guard length <= bytes.count - start else { throw .init(reason: .truncated, offset: start) }
            let body = NetlinkReader(bytes: bytes, start: reader.offset, end: start + length)
            let message = try decodeBody(type: type, body)
            messages.append(NetlinkEnvelope(type: type, flags: flags, sequence: sequence, message: message))
            // The last message's padding may be missing.
            reader.offset = min(start + Netlink.align(length), bytes.count)
        }
        return messages
    }

    private static func decodeBody(type: UInt16, _ body: NetlinkReader) throws(NetlinkParseError) -> NetlinkMessage {
        var body = body
        switch type {
        case Netlink.done:
            return .done
        case Netlink.error:
            guard body.remaining >= 4 else { throw .init(reason: .shortBody, offset: body.offset) }
            return .error(code: Int32(bitPattern: try body.u32()))
        case Netlink.newRoute, Netlink.deleteRoute:
            return .route(try decodeRoute(body), deleted: type == Netlink.deleteRoute)
        case Netlink.newAddress, Netlink.deleteAddress:
            return .address(try decodeAddress(body), deleted: type == Netlink.deleteAddress)
        case Netlink.newLink, Netlink.deleteLink:
            return .link(try decodeLink(body), deleted: type == Netlink.deleteLink)
        default:
            return .other(type: type)
        }
    }

    /// struct rtmsg (12 bytes), then attributes.
    private static func decodeRoute(_ body: NetlinkReader) throws(NetlinkParseError) -> Route {
        var body = body
        guard body.remaining >= 12 else { throw .init(reason: .shortBody, offset: body.offset) }
        let family = try body.u8()
        let destinationLength = try body.u8()
        _ = try body.u8()  // rtm_src_len
        _ = try body.u8()  // rtm_tos
        let table = try body.u8()
        _ = try body.u8()  // rtm_protocol
        _ = try body.u8()  // rtm_scope
        _ = try body.u8()  // rtm_type
        _ = try body.u32()  // rtm_flags
        var route = Route(family: family, destinationPrefixLength: destinationLength, table: UInt32(table))
        try body.forEachAttribute { type, value throws(NetlinkParseError) in
            switch type {
            case Netlink.routeDestination: route.destination = try value.address()
            case Netlink.routeGateway: route.gateway = try value.address()
            case Netlink.routePreferredSource: route.preferredSource = try value.address()
            case Netlink.routeOutputInterface: route.outputInterface = try value.integer()
            case Netlink.routePriority: route.priority = try value.integer()
            case Netlink.routeTable: route.table = try value.integer()
            default: break
            }
        }
        return route
    }

    /// struct ifaddrmsg (8 bytes), then attributes.
    private static func decodeAddress(_ body: NetlinkReader) throws(NetlinkParseError) -> Address {
        var body = body
        guard body.remaining >= 8 else { throw .init(reason: .shortBody, offset: body.offset) }
        let family = try body.u8()
        let prefixLength = try body.u8()
        _ = try body.u16()  // ifa_flags, ifa_scope
        let index = try body.u32()
        var local: RouteAddress?
        var address: RouteAddress?
        try body.forEachAttribute { type, value throws(NetlinkParseError) in
            switch type {
            case Netlink.addressLocal: local = try value.address()
            case Netlink.addressAddress: address = try value.address()
            default: break
            }
        }
        return Address(family: family, prefixLength: prefixLength, interfaceIndex: index, address: local ?? address)
    }

    /// struct ifinfomsg (16 bytes), then attributes.
    private static func decodeLink(_ body: NetlinkReader) throws(NetlinkParseError) -> Link {
        var body = body
        guard body.remaining >= 16 else { throw .init(reason: .shortBody, offset: body.offset) }
        _ = try body.u32()  // ifi_family, padding, ifi_type
        let index = try body.u32()
        let flags = try body.u32()
        _ = try body.u32()  // ifi_change
        var name: String?
        try body.forEachAttribute { type, value throws(NetlinkParseError) in
            if type == Netlink.linkName {
                // A NUL-terminated string; a missing terminator is tolerated.
                name = String(decoding: value.rest.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return Link(interfaceIndex: index, flags: flags, name: name)
    }
}

/// A bounds-checked cursor over `bytes[start..<end]`: every read checks, none traps.
struct NetlinkReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(bytes: [UInt8], start: Int, end: Int) {
        self.bytes = bytes
        self.offset = start
        self.end = end
    }

    var remaining: Int { end - offset }
    var rest: ArraySlice<UInt8> { bytes[offset..<end] }

    mutating func u8() throws(NetlinkParseError) -> UInt8 {
        try field(1)[0]
    }

    mutating func u16() throws(NetlinkParseError) -> UInt16 {
        UInt16(hostOrder: try field(2))
    }

    mutating func u32() throws(NetlinkParseError) -> UInt32 {
        UInt32(hostOrder: try field(4))
    }

    private mutating func field(_ count: Int) throws(NetlinkParseError) -> [UInt8] {
        guard remaining >= count else { throw .init(reason: .truncated, offset: offset) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Calls `body` with each attribute's type (flags masked off) and a reader over its value.
    mutating func forEachAttribute(
        _ body: (UInt16, NetlinkReader) throws(NetlinkParseError) -> Void
    ) throws(NetlinkParseError) {
        while remaining > 0 {
            let start = offset
            guard remaining >= 4 else { throw .init(reason: .badAttributeLength, offset: start) }
            let length = Int(try u16())
            let type = try u16() & 0x3fff  // NLA_TYPE_MASK: drop NLA_F_NESTED, NLA_F_NET_BYTEORDER
            guard length >= 4, length <= end - start else { throw .init(reason: .badAttributeLength, offset: start) }
            try body(type, NetlinkReader(bytes: bytes, start: start + 4, end: start + length))
            offset = min(start + Netlink.align(length), end)
        }
    }

    /// The whole value as an IPv4 or IPv6 address.
    func address() throws(NetlinkParseError) -> RouteAddress {
        guard let address = RouteAddress(bytes: Array(rest)) else {
            throw .init(reason: .badAttributeValue, offset: offset)
        }
        return address
    }

    /// The whole value as a 32-bit integer.
    func integer() throws(NetlinkParseError) -> UInt32 {
        guard remaining == 4 else { throw .init(reason: .badAttributeValue, offset: offset) }
        return UInt32(hostOrder: Array(rest))
    }
}

extension FixedWidthInteger {
    /// The integer whose in-memory (host order) bytes are `bytes`; `bytes.count` must be the
    /// integer's size, which every caller checks.
    init(hostOrder bytes: [UInt8]) {
        var value = Self.zero
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes.prefix(MemoryLayout<Self>.size)) }
        self = value
    }

    /// The integer's in-memory (host order) bytes.
    var hostOrderBytes: [UInt8] {
        withUnsafeBytes(of: self) { Array($0) }
    }
}
