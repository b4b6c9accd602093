//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// The Darwin Bonjour announcer (Tests/DarwinPrograms/BonjourAnnouncer.swift), ported by the
/// script, against a real avahi-daemon: it publishes a service with a TXT record, finds and
/// resolves it by browsing, watches its TXT record change, and reaches the echo server it
/// announces over `URLSession.shared`.
@Suite(.timeLimit(.minutes(2))) struct PortedBonjourAnnouncerTests {
    static let peer = PortedDarwinProgramTests.root.appendingPathComponent("Tests/StreamTaskKitTests/Peers/peer.py")
        .path

    @Test func theAnnouncerPublishesFindsUpdatesAndReachesItsService() async throws {
        let echo = try ObservedProcess("/usr/bin/env", ["python3", "-u", Self.peer, "echo"])
        defer { Task { await echo.stop() } }
        #expect(await echo.waitForOutput(containing: "\n"), "\(echo.output)")
        let port = try #require(echo.output.split(separator: "\n").first.flatMap { Int($0) }, "\(echo.output)")
        let name = "announcer \(UInt32.random(in: 0...UInt32.max))"
        let announcer = try ObservedProcess(try BuiltProducts.path("ported-bonjour-announcer"), [name, "\(port)"])
        #expect(await announcer.waitForExit(seconds: 40), "\(announcer.output)")
        let output = announcer.output
        #expect(announcer.child.exitCode == 0, "\(output)")
        for line in [
            "published \(name) in local., TXT state=starting\n",
            "found \(name)",
            "resolved \(name) on ",
            " port \(port): ",
            "its TXT record says state=starting\n",
            "the TXT record now says state=ready\n",
            "the service answered: are you there?\n",
            "the announcement was withdrawn\n",
        ] {
            #expect(output.contains(line), "\(line) missing from: \(output)")
        }
        // The resolved addresses, as socket address bytes, include the loopback address that
        // the loopback-only daemon announces.
        let resolved = try #require(output.split(separator: "\n").first { $0.hasPrefix("resolved ") })
        #expect(resolved.contains("127.0.0.1"), "\(resolved)")
        await announcer.stop()
    }

    /// With `.noAutoRename`, a name another program has published already is a collision,
    /// reported in `netService(_:didNotPublish:)` with Foundation's error dictionary.
    @Test func aTakenNameIsACollisionWithoutAutoRename() async throws {
        let name = "taken \(UInt32.random(in: 0...UInt32.max))"
        let avahi = try ObservedProcess("/usr/bin/avahi-publish", ["-s", name, "_stkecho._tcp", "9"])
        defer { Task { await avahi.stop() } }
        #expect(await avahi.waitForOutput(containing: "Established"), "\(avahi.output)")
        let announcer = try ObservedProcess(try BuiltProducts.path("ported-bonjour-announcer"), [name, "9"])
        #expect(await announcer.waitForExit(seconds: 30), "\(announcer.output)")
        #expect(announcer.child.exitCode == 2, "\(announcer.output)")
        #expect(announcer.output.contains("not published: 10 -72001"), "\(announcer.output)")
        await announcer.stop()
    }
}
