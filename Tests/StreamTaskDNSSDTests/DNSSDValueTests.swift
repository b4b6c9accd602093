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
import Testing

@testable import StreamTaskDNSSD

/// The module's plain-value logic: browse bookkeeping, alternative names, error texts, input
/// checks and address decoding (no daemon).
@Suite struct DNSSDValueTests {
    let service = DNSSDService(name: "A", type: "_t._tcp", interface: DNSSDInterface(index: 1))

    /// Set as the test program loaded, before any DNS-SD call and before other threads ran:
    /// Avahi's compatibility layer then prints nothing.
    @Test func avahisCompatibilityWarningIsSilencedFromTheStart() {
        #expect(DNSSDQueue.silencedAtLoad != 0)
        #if os(Linux)
        // The load-time code ran: it set the variable, or found the user's (1 or 2; 0 if it
        // never ran).
        #expect([1, 2].contains(DNSSDQueue.silencedAtLoad))
        #expect(ProcessInfo.processInfo.environment["AVAHI_COMPAT_NOWARN"] != nil)
        #endif
    }

    @Test func aServiceSeenTwiceIsAddedOnceAndRemovedWithItsLastSighting() {
        var tally = BrowseTally()
        #expect(tally.add(service) == .added(service))
        #expect(tally.add(service) == nil)  // the same service over IPv6
        #expect(tally.remove(service) == nil)
        #expect(tally.remove(service) == .removed(service))
        #expect(tally.remove(service) == nil, "a removal of something never added is dropped")
        #expect(tally.add(service) == .added(service))
    }

    @Test func theSameNameOnAnotherInterfaceIsAnotherService() {
        var tally = BrowseTally()
        let elsewhere = DNSSDService(name: "A", type: "_t._tcp", interface: DNSSDInterface(index: 2))
        #expect(tally.add(service) == .added(service))
        #expect(tally.add(elsewhere) == .added(elsewhere))
    }

    @Test func alternativeNamesCountUp() {
        #expect(AlternativeName.after("Chat") == "Chat (2)")
        #expect(AlternativeName.after("Chat (2)") == "Chat (3)")
        #expect(AlternativeName.after("Chat (9)") == "Chat (10)")
        #expect(AlternativeName.after("Chat (1)") == "Chat (1) (2)")
        #expect(AlternativeName.after("(2)") == "(2) (2)")
        #expect(AlternativeName.after("Chat (x)") == "Chat (x) (2)")
        let long = String(repeating: "é", count: 31)  // 62 bytes
        let next = AlternativeName.after(long)
        #expect(next.utf8.count <= 63)
        #expect(next == String(repeating: "é", count: 29) + " (2)")
    }

    @Test func namesAndTypesAreNormalized() {
        let service = DNSSDService(name: "x", type: "_http._tcp.", domain: "local")
        #expect(service.type == "_http._tcp")
        #expect(service.domain == "local.")
        #expect(DNSSDService(name: "x", type: "_http._tcp", domain: "").domain == "local.")
        #expect(service.description == "\"x\" _http._tcp in local.")
    }

    @Test(arguments: ["_http._tcp", "_a._udp", "_fifteen-chars-x._tcp"])
    func validServiceTypes(type: String) throws {
        try DNSSDService.validate(type: type)
    }

    @Test(arguments: ["http._tcp", "_http", "_._tcp", "_http._sctp", "_sixteen-chars-xx._tcp", "_a._b._tcp"])
    func invalidServiceTypes(type: String) {
        #expect(throws: DNSSDError.self) { try DNSSDService.validate(type: type) }
    }

    @Test func daemonErrorsHaveNamesAndSentences() {
        let conflict = DNSSDError.daemon(-65548, while: "registering \"x\"")
        #expect(conflict.code == .nameConflict)
        #expect(conflict.daemonErrorName == "kDNSServiceErr_NameConflict")
        #expect(
            conflict.description
                == "DNSSDError.nameConflict: registering \"x\" failed: the name is already in use [kDNSServiceErr_NameConflict (-65548): the name is already in use]"
        )
        #expect(DNSSDError.daemon(-65540, while: "x").code == .invalidArgument)
        #expect(DNSSDError.daemon(-65544, while: "x").code == .unsupported)
        #expect(DNSSDError.daemon(-65568, while: "x").code == .timedOut)
        #expect(DNSServiceErrorText.name(of: -65563) == "kDNSServiceErr_ServiceNotRunning")
        #expect(DNSServiceErrorText.name(of: -1) == "DNSServiceErrorType -1")
        #expect(DNSServiceErrorText.sentence(for: -1) == "an error code this library does not know")
    }

    @Test func addressRecordsBecomeSocketAddresses() throws {
        let v4 = try #require(
            ResolveOperation.socketAddress(type: 1, data: Data([127, 0, 0, 1]), port: 80, interface: 1))
        #expect(v4.ipAddress == "127.0.0.1")
        #expect(v4.port == 80)
        #expect(v4.hostLiteral == "127.0.0.1")

        var loopback = Data(repeating: 0, count: 16)
        loopback[15] = 1
        let v6 = try #require(ResolveOperation.socketAddress(type: 28, data: loopback, port: 81, interface: 1))
        #expect(v6.hostLiteral == "::1", "not link-local: no scope")

        var linkLocal = Data(repeating: 0, count: 16)
        linkLocal[0] = 0xFE
        linkLocal[1] = 0x80
        linkLocal[15] = 1
        let lo = try #require(DNSSDInterface(name: "lo"))
        let scoped = try #require(
            ResolveOperation.socketAddress(type: 28, data: linkLocal, port: 82, interface: lo.index))
        #expect(scoped.hostLiteral == "fe80::1%lo")

        #expect(ResolveOperation.socketAddress(type: 1, data: Data([1, 2, 3]), port: 1, interface: 0) == nil)
        #expect(ResolveOperation.socketAddress(type: 16, data: Data([1, 2, 3, 4]), port: 1, interface: 0) == nil)
    }

    @Test func interfacesHaveNames() throws {
        let lo = try #require(DNSSDInterface(name: "lo"))
        #expect(lo.index > 0)
        #expect(lo.name == "lo")
        #expect(lo.description == "lo")
        #expect(DNSSDInterface.any.name == nil)
        #expect(DNSSDInterface.any.description == "any interface")
        #expect(DNSSDInterface(name: "no-such-interface") == nil)
    }
}
