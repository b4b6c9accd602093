//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The three requests the route monitor sends the kernel, as bytes.
enum NetlinkRequest {
    /// RTM_GETROUTE for `destination`: the kernel answers with the route it would use now, with
    /// RTA_OIF (the interface) and RTA_PREFSRC (the source address it would pick).
    static func route(to destination: RouteAddress, sequence: UInt32) -> [UInt8] {
        var body: [UInt8] = [
            destination.isIPv4 ? Netlink.familyIPv4 : Netlink.familyIPv6,  // rtm_family
            UInt8(destination.bytes.count * 8),  // rtm_dst_len: a host route
            0, 0, 0, 0, 0, 0,  // src_len, tos, table, protocol, scope, type
        ]
        body += UInt32(0).hostOrderBytes  // rtm_flags
        body += attribute(Netlink.routeDestination, destination.bytes)
        return message(type: Netlink.getRoute, flags: Netlink.flagRequest, sequence: sequence, body: body)
    }

    /// RTM_GETLINK dump: every interface with its flags.
    static func links(sequence: UInt32) -> [UInt8] {
        // struct ifinfomsg, all zero: every family, every interface.
        message(
            type: Netlink.getLink, flags: Netlink.flagRequest | Netlink.flagDump, sequence: sequence,
            body: .init(repeating: 0, count: 16))
    }

    /// RTM_GETADDR dump: every address of every interface, IPv4 and IPv6.
    static func addresses(sequence: UInt32) -> [UInt8] {
        // struct ifaddrmsg, all zero: AF_UNSPEC.
        message(
            type: Netlink.getAddress, flags: Netlink.flagRequest | Netlink.flagDump, sequence: sequence,
            body: .init(repeating: 0, count: 8))
    }

    private static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = UInt16(4 + value.count).hostOrderBytes + type.hostOrderBytes + value
        bytes += [UInt8](repeating: 0, count: Netlink.align(bytes.count) - bytes.count)
        return bytes
    }

    private static func message(type: UInt16, flags: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        let length = UInt32(Netlink.headerLength + body.count)
        // nlmsg_pid 0: the kernel fills in our port.
        return length.hostOrderBytes + type.hostOrderBytes + flags.hostOrderBytes + sequence.hostOrderBytes
            + UInt32(0).hostOrderBytes + body
    }
}
