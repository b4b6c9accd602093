//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import StreamTaskCore
@testable import StreamTaskRoutes

/// The netlink codec against bytes a Linux kernel (x86-64, little-endian) really sent, and
/// against malformed input, which must throw and never trap.
@Suite struct NetlinkMessageTests {
    /// The kernel's answer to RTM_GETROUTE for 192.0.2.1: table main, dst 192.0.2.1/32, oif 4,
    /// prefsrc 192.0.2.2, then RTA_UID and RTA_CACHEINFO (ignored).
    static let routeReply: [UInt8] = [
        0x68, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0xe8, 0x3f, 0x00, 0x00,
        0x02, 0x20, 0x00, 0x00, 0xfe, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x08, 0x00, 0x0f, 0x00,
        0xfe, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0xc0, 0x00, 0x02, 0x01, 0x08, 0x00, 0x04, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x08, 0x00, 0x07, 0x00, 0xc0, 0x00, 0x02, 0x02, 0x08, 0x00, 0x19, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x0c, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]

    /// Two RTM_NEWADDR messages from one RTM_GETADDR dump datagram: 127.0.0.1/8 on lo (index 1),
    /// 192.0.2.2/24 on eth0 (index 4), each with IFA_ADDRESS, IFA_LOCAL, IFA_LABEL, IFA_FLAGS
    /// and IFA_CACHEINFO.
    static let addressDump: [UInt8] = [
        0x4c, 0x00, 0x00, 0x00, 0x14, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00, 0x96, 0x40, 0x00, 0x00,
        0x02, 0x08, 0x80, 0xfe, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0x7f, 0x00, 0x00, 0x01,
        0x08, 0x00, 0x02, 0x00, 0x7f, 0x00, 0x00, 0x01, 0x07, 0x00, 0x03, 0x00, 0x6c, 0x6f, 0x00, 0x00,
        0x08, 0x00, 0x08, 0x00, 0x80, 0x00, 0x00, 0x00, 0x14, 0x00, 0x06, 0x00, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
        0x58, 0x00, 0x00, 0x00, 0x14, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00, 0x96, 0x40, 0x00, 0x00,
        0x02, 0x18, 0x80, 0x00, 0x04, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0xc0, 0x00, 0x02, 0x02,
        0x08, 0x00, 0x02, 0x00, 0xc0, 0x00, 0x02, 0x02, 0x08, 0x00, 0x04, 0x00, 0xc0, 0x00, 0x02, 0xff,
        0x09, 0x00, 0x03, 0x00, 0x65, 0x74, 0x68, 0x30, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x08, 0x00,
        0x80, 0x00, 0x00, 0x00, 0x14, 0x00, 0x06, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x14, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
    ]

    /// An RTM_NEWLINK for lo (index 1, flags UP|LOOPBACK|RUNNING|LOWER_UP), cut down from a
    /// real dump to its header, ifinfomsg and IFLA_IFNAME (the length field adjusted).
    static let loopbackLink: [UInt8] = [
        0x28, 0x00, 0x00, 0x00, 0x10, 0x00, 0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0xe8, 0x3f, 0x00, 0x00,
        0x00, 0x00, 0x04, 0x03, 0x01, 0x00, 0x00, 0x00, 0x49, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x07, 0x00, 0x03, 0x00, 0x6c, 0x6f, 0x00, 0x00,
    ]

    /// The NLMSG_DONE closing the address dump (its body: an int 0).
    static let done: [UInt8] = [
        0x14, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00, 0xe8, 0x3f, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00,
    ]

    private func address(_ text: String) throws -> RouteAddress {
        try #require(RouteAddress(text))
    }

    @Test func decodesTheKernelsRouteAnswer() throws {
        let messages = try NetlinkMessage.decode(Self.routeReply)
        #expect(messages.count == 1)
        let envelope = try #require(messages.first)
        #expect(envelope.type == Netlink.newRoute)
        #expect(envelope.sequence == 7)
        guard case .route(let route, deleted: false) = envelope.message else {
            Issue.record("not a route: \(envelope.message)")
            return
        }
        #expect(route.family == Netlink.familyIPv4)
        #expect(route.destinationPrefixLength == 32)
        #expect(route.table == 254)
        #expect(route.destination == (try address("192.0.2.1")))
        #expect(route.outputInterface == 4)
        #expect(route.preferredSource == (try address("192.0.2.2")))
        #expect(route.gateway == nil)
    }

    @Test func decodesEveryMessageOfADumpDatagram() throws {
        let messages = try NetlinkMessage.decode(Self.addressDump + Self.done)
        #expect(
            messages.map(\.message) == [
                .address(
                    .init(family: 2, prefixLength: 8, interfaceIndex: 1, address: try address("127.0.0.1")),
                    deleted: false),
                .address(
                    .init(family: 2, prefixLength: 24, interfaceIndex: 4, address: try address("192.0.2.2")),
                    deleted: false),
                .done,
            ])
        #expect(messages.allSatisfy { $0.sequence == 9 })
    }

    @Test func decodesALinkWithItsFlagsAndName() throws {
        let messages = try NetlinkMessage.decode(Self.loopbackLink)
        guard case .link(let link, deleted: false) = messages.first?.message else {
            Issue.record("not a link: \(messages)")
            return
        }
        #expect(link.interfaceIndex == 1)
        #expect(link.name == "lo")
        #expect(link.flags == 0x10049)
        #expect(link.isUp)
        var down = link
        down.flags &= ~Netlink.linkUp
        #expect(!down.isUp)
        var noCarrier = link
        noCarrier.flags &= ~Netlink.linkRunning
        #expect(!noCarrier.isUp)
    }

    @Test func deletionsAndErrorsAndUnknownTypes() throws {
        var deleted = Self.routeReply
        deleted[4] = UInt8(Netlink.deleteRoute)
        guard case .route(_, deleted: true) = try NetlinkMessage.decode(deleted).first?.message else {
            Issue.record("RTM_DELROUTE not decoded as a deletion")
            return
        }
        // NLMSG_ERROR with -ENETUNREACH (101), followed by the request's header.
        let error: [UInt8] =
            [0x24, 0, 0, 0, 0x02, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x9b, 0xff, 0xff, 0xff]
            + [0x1c, 0, 0, 0, 0x1a, 0, 0x01, 0, 0x07, 0, 0, 0, 0, 0, 0, 0]
        #expect(try NetlinkMessage.decode(error).map(\.message) == [.error(code: -101)])
        // NLMSG_NOOP (1): skipped, not rejected.
        let noop: [UInt8] = [0x10, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(try NetlinkMessage.decode(noop).map(\.message) == [.other(type: 1)])
        #expect(try NetlinkMessage.decode([]).isEmpty)
    }

    @Test func encodesARouteRequest() throws {
        let request = NetlinkRequest.route(to: try address("192.0.2.1"), sequence: 7)
        #expect(
            request == [
                0x24, 0x00, 0x00, 0x00,  // length 36
                0x1a, 0x00, 0x01, 0x00,  // RTM_GETROUTE, NLM_F_REQUEST
                0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // sequence 7, port 0
                0x02, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // rtmsg: AF_INET, /32
                0x08, 0x00, 0x01, 0x00, 0xc0, 0x00, 0x02, 0x01,  // RTA_DST 192.0.2.1
            ])
        let v6 = NetlinkRequest.route(to: try address("2001:db8::1"), sequence: 1)
        #expect(v6.count == 16 + 12 + 4 + 16)
        #expect(v6[16] == Netlink.familyIPv6)
        #expect(v6[17] == 128)
        // Our requests decode with our own parser as what they are.
        #expect(
            try NetlinkMessage.decode(NetlinkRequest.links(sequence: 3)).map(\.message) == [
                .other(type: Netlink.getLink)
            ])
        let dump = try #require(try NetlinkMessage.decode(NetlinkRequest.addresses(sequence: 4)).first)
        #expect(dump.flags == Netlink.flagRequest | Netlink.flagDump)
        #expect(dump.type == Netlink.getAddress)
    }

    @Test func malformedInputThrowsTheRightReason() {
        func reason(_ bytes: [UInt8]) -> NetlinkParseError.Reason? {
            do {
                _ = try NetlinkMessage.decode(bytes)
                return nil
            } catch {
                return error.reason
            }
        }
        // Shorter than a header.
        #expect(reason(Array(Self.routeReply.prefix(10))) == .truncated)
        // A header that claims more bytes than there are.
        #expect(reason(Array(Self.routeReply.prefix(60))) == .truncated)
        // A length below the header's own 16 bytes (a loop would never advance).
        #expect(reason([0x08, 0, 0, 0, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == .badMessageLength)
        // An rtmsg cut short.
        #expect(reason([0x14, 0, 0, 0, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x20, 0, 0]) == .shortBody)
        // An attribute of length 2 (below its own header), and one running past the message.
        var tiny = Self.routeReply
        tiny[28] = 0x02
        #expect(reason(tiny) == .badAttributeLength)
        var long = Self.routeReply
        long[28] = 0xf0
        #expect(reason(long) == .badAttributeLength)
        // RTA_DST of 5 bytes, RTA_OIF of 2 bytes.
        var oddAddress = Self.routeReply
        oddAddress[36] = 0x09
        #expect(reason(oddAddress) == .badAttributeValue)
        var shortInteger = Self.routeReply
        shortInteger[44] = 0x06
        #expect(reason(shortInteger) == .badAttributeValue)
    }

    /// Every prefix and every single-byte change of the fixtures either decodes or throws: the
    /// parser never traps. (A fuzzer will push further; this is the cheap part of it.)
    @Test func everyPrefixAndMutationIsHandled() {
        var outcomes = (decoded: 0, rejected: 0)
        func attempt(_ bytes: [UInt8]) {
            if (try? NetlinkMessage.decode(bytes)) != nil { outcomes.decoded += 1 } else { outcomes.rejected += 1 }
        }
        for fixture in [Self.routeReply, Self.addressDump, Self.loopbackLink, Self.done] {
            for length in 0...fixture.count { attempt(Array(fixture.prefix(length))) }
            for index in fixture.indices {
                for value: UInt8 in [0x00, 0x01, 0x03, 0x7f, 0xff] {
                    var mutated = fixture
                    mutated[index] = value
                    attempt(mutated)
                }
            }
        }
        // Both outcomes occur: the mutations reach the checks, and harmless ones still decode.
        #expect(outcomes.decoded > 0)
        #expect(outcomes.rejected > 0)
    }

    @Test func addressesFromText() throws {
        #expect(try address("198.18.0.1").bytes == [198, 18, 0, 1])
        #expect(try address("::ffff:10.0.0.1") == (try address("10.0.0.1")))
        #expect(try address("fe80::1%eth0") == (try address("fe80::1")))
        #expect(try address("127.0.0.2").isLoopback)
        #expect(try address("::1").isLoopback)
        #expect(!(try address("198.18.0.1").isLoopback))
        #expect(RouteAddress("not an address") == nil)
        #expect(RouteAddress(bytes: [1, 2, 3]) == nil)
        #expect(try address("2001:db8::1").description == "2001:db8:0:0:0:0:0:1")
    }
}
