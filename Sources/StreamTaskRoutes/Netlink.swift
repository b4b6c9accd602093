//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The rtnetlink numbers the route monitor uses, defined here because Swift's Glibc module does
/// not export `linux/netlink.h`, `linux/rtnetlink.h`, `linux/if_addr.h` and `linux/if_link.h`
/// (and their `NLMSG_*` / `RTA_*` helpers are C macros). Each value is the kernel's, from the
/// header named beside it; they are part of the kernel's stable user-space ABI.
enum Netlink {
    // linux/netlink.h
    static let protocolRoute: Int32 = 0  // NETLINK_ROUTE
    static let addressFamily: Int32 = 16  // AF_NETLINK (bits/socket.h)
    static let headerLength = 16  // sizeof(struct nlmsghdr)
    static let done: UInt16 = 3  // NLMSG_DONE
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let flagRequest: UInt16 = 0x1  // NLM_F_REQUEST
    static let flagDump: UInt16 = 0x300  // NLM_F_ROOT | NLM_F_MATCH

    // linux/rtnetlink.h: message types
    static let newLink: UInt16 = 16  // RTM_NEWLINK
    static let deleteLink: UInt16 = 17  // RTM_DELLINK
    static let getLink: UInt16 = 18  // RTM_GETLINK
    static let newAddress: UInt16 = 20  // RTM_NEWADDR
    static let deleteAddress: UInt16 = 21  // RTM_DELADDR
    static let getAddress: UInt16 = 22  // RTM_GETADDR
    static let newRoute: UInt16 = 24  // RTM_NEWROUTE
    static let deleteRoute: UInt16 = 25  // RTM_DELROUTE
    static let getRoute: UInt16 = 26  // RTM_GETROUTE

    // linux/rtnetlink.h: multicast groups (the legacy RTMGRP_* bit masks for nl_groups)
    static let groupLink: UInt32 = 0x1  // RTMGRP_LINK
    static let groupIPv4Address: UInt32 = 0x10  // RTMGRP_IPV4_IFADDR
    static let groupIPv4Route: UInt32 = 0x40  // RTMGRP_IPV4_ROUTE
    static let groupIPv6Address: UInt32 = 0x100  // RTMGRP_IPV6_IFADDR
    static let groupIPv6Route: UInt32 = 0x400  // RTMGRP_IPV6_ROUTE
    static let watchedGroups = groupLink | groupIPv4Address | groupIPv6Address | groupIPv4Route | groupIPv6Route

    // linux/rtnetlink.h: route attributes (enum rtattr_type_t)
    static let routeDestination: UInt16 = 1  // RTA_DST
    static let routeOutputInterface: UInt16 = 4  // RTA_OIF
    static let routeGateway: UInt16 = 5  // RTA_GATEWAY
    static let routePriority: UInt16 = 6  // RTA_PRIORITY
    static let routePreferredSource: UInt16 = 7  // RTA_PREFSRC
    static let routeTable: UInt16 = 15  // RTA_TABLE

    // linux/if_addr.h: address attributes
    static let addressAddress: UInt16 = 1  // IFA_ADDRESS
    static let addressLocal: UInt16 = 2  // IFA_LOCAL

    // linux/if_link.h: link attributes
    static let linkName: UInt16 = 3  // IFLA_IFNAME

    // net/if.h: link flags (struct ifinfomsg.ifi_flags)
    static let linkUp: UInt32 = 0x1  // IFF_UP
    static let linkRunning: UInt32 = 0x40  // IFF_RUNNING

    // bits/socket.h
    static let familyIPv4: UInt8 = 2  // AF_INET
    static let familyIPv6: UInt8 = 10  // AF_INET6

    /// NLMSG_ALIGN / RTA_ALIGN: messages and attributes start on 4-byte boundaries.
    static func align(_ length: Int) -> Int { (length + 3) & ~3 }
}
