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

@testable import StreamTaskDNSSD

/// Checks against Avahi's own tools, run as child processes: `avahi-browse` must see what we
/// register, and we must see what `avahi-publish` announces. Loopback only (see
/// scripts/start-services.sh).
@Suite(.timeLimit(.minutes(1))) struct AvahiCrossCheckTests {
    @Test func avahiBrowseSeesOurRegistrationWithItsTXTRecord() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(
            name: name, type: type, port: 5151, txtRecord: ["k": "v", "empty": .data(Data()), "flag": .keyOnly])

        // `-r` resolves, `-p` prints one parsable line per service, `-t` ends at "all for now".
        let browse = try ObservedProcess(try avahiTool("avahi-browse"), ["-rpt", type])
        let exited = await browse.waitForExit(seconds: 30)
        let lines = browse.output.split(separator: "\n").map(String.init)
        await browse.stop()
        try #require(exited, "avahi-browse did not list the services and exit within 30 s: \(lines)")
        let resolved = lines.filter { $0.hasPrefix("=") }.map {
            $0.split(separator: ";", omittingEmptySubsequences: false)
        }
        let ours = try #require(resolved.first { $0.count >= 10 && avahiUnescape($0[3]) == name }, "\(lines)")
        #expect(ours[1] == "lo")
        #expect(ours[4] == Substring(type))
        // The host's address on lo: avahi-browse resolves either record Avahi publishes for it
        // (A or AAAA, both over IPv4 mDNS), whichever answers first.
        #expect(["127.0.0.1", "::1"].contains(ours[7]), "\(ours)")
        #expect(ours[8] == "5151")
        let txt = Set(ours[9].split(separator: " ").map(String.init))
        #expect(txt == ["\"k=v\"", "\"empty=\"", "\"flag\""])
        registration.cancel()
    }

    @Test func weSeeWhatAvahiPublishAnnouncesAndWhenItStops() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let publish = try ObservedProcess(
            try avahiTool("avahi-publish"), ["-s", name, type, "5252", "k=v", "flag", "empty="])
        do {
            try #require(
                await publish.waitForOutput(containing: "Established"), "avahi-publish said: \(publish.output)")
            try await seeAppearResolveAndGo(published: publish, name: name, type: type)
            await publish.stop()
        } catch {
            await publish.stop()
            throw error
        }
    }

    /// Browses `type` for avahi-publish's service `name` (port 5252, TXT k=v, flag, empty=),
    /// resolves it, then stops avahi-publish and sees the service go.
    private func seeAppearResolveAndGo(published publish: ObservedProcess, name: String, type: String) async throws {
        try await within(30, "avahi-publish's service to appear, resolve, and go away") {
            var events = DNSSDBrowser(type: type).makeAsyncIterator()
            let added = try await events.next()
            #expect(added?.service.name == name)
            #expect(added?.service.interface.name == "lo")
            guard case .added(let service)? = added else { return }

            let resolved = try await service.resolve()
            #expect(resolved.port == 5252)
            #expect(resolved.txtRecord == ["k": "v", "flag": .keyOnly, "empty": .data(Data())])
            // The host's addresses on lo: 127.0.0.1, and ::1 too (Avahi publishes AAAA records
            // over IPv4 mDNS).
            #expect(resolved.addresses.contains { $0.ipAddress == "127.0.0.1" }, "\(resolved.addresses)")

            await publish.stop()
            let removed = try await events.next()
            #expect(removed == .removed(service))
        }
    }

    @Test func aNameTakenByAvahiPublishIsRenamed() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let publish = try ObservedProcess(try avahiTool("avahi-publish"), ["-s", name, type, "5353"])
        do {
            try #require(
                await publish.waitForOutput(containing: "Established"), "avahi-publish said: \(publish.output)")
            let registration = try await DNSSDRegistration.register(name: name, type: type, port: 5354)
            #expect(registration.wasRenamed)
            #expect(registration.name == "\(name) (2)")
            #expect(try await registration.service.resolve().port == 5354)
            registration.cancel()
            await publish.stop()
        } catch {
            await publish.stop()
            throw error
        }
    }

    @Test func binaryEmptyAndKeyOnlyTXTValuesSurviveTheDaemon() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let txt: DNSSDTXTRecord = [
            "bin": .data(Data([0x00, 0x01, 0xFE, 0xFF, UInt8(ascii: "=")])),
            "empty": .data(Data()),
            "flag": .keyOnly,
            "text": "héllo wörld",
        ]
        let registration = try await DNSSDRegistration.register(
            name: uniqueServiceName(), type: type, port: 5454, txtRecord: txt)
        let event = try await DNSSDBrowser(type: type).first("our service") { _ in true }
        let resolved = try await event.service.resolve()
        #expect(resolved.txtRecord == txt)
        #expect(resolved.txtRecord["bin"]?.data == Data([0x00, 0x01, 0xFE, 0xFF, UInt8(ascii: "=")]))
        #expect(resolved.txtRecord["flag"] == .keyOnly)
        #expect(resolved.txtRecord["empty"] == .data(Data()))
        #expect(resolved.txtRecord["text"]?.string == "héllo wörld")
        registration.cancel()
    }
}

/// Undoes avahi-browse's escaping of names in parsable output (`\032` for a space, `\.` for a dot).
func avahiUnescape(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var rest = Array(text.utf8)[...]
    while let first = rest.first {
        rest = rest.dropFirst()
        guard first == UInt8(ascii: "\\"), !rest.isEmpty else {
            bytes.append(first)
            continue
        }
        let digits = rest.prefix(3)
        if digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = UInt8(String(decoding: digits, as: UTF8.self))
        {
            bytes.append(value)
            rest = rest.dropFirst(3)
        } else {
            bytes.append(rest.removeFirst())
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
