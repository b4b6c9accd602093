//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import StreamTaskDNSSD

/// Registering and browsing against the real avahi-daemon (loopback only; see
/// scripts/start-services.sh).
@Suite(.timeLimit(.minutes(1))) struct RegisterAndBrowseTests {
    @Test func aRegistrationIsFoundByBrowsingAndResolves() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(
            name: name, type: type, port: 4242, txtRecord: ["path": "/chat"])
        #expect(registration.name == name)
        #expect(!registration.wasRenamed)
        #expect(registration.service.type == type)
        #expect(registration.service.domain == "local.")

        let event = try await DNSSDBrowser(type: type).first("our registration") { $0.service.name == name }
        guard case .added(let found) = event else {
            Issue.record("expected an addition, got \(event)")
            return
        }
        #expect(found.type == type)
        #expect(found.domain == "local.")
        #expect(found.interface.name == "lo", "the test daemon uses loopback only: \(found.interface)")

        let resolved = try await found.resolve(timeout: 10)
        #expect(resolved.port == 4242)
        #expect(resolved.hostName.hasSuffix(".local."))
        #expect(resolved.txtRecord["path"]?.string == "/chat")
        #expect(resolved.addresses.contains { $0.ipAddress == "127.0.0.1" }, "\(resolved.addresses)")
        #expect(resolved.addresses.allSatisfy { $0.port == 4242 })
        registration.cancel()
    }

    @Test func cancellingARegistrationIsSeenAsRemoval() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(name: name, type: type, port: 4243)

        let events = try await appearThenVanish(type: type) { registration.cancel() }
        #expect(events.added == .added(registration.service.onLoopback))
        #expect(events.removed == .removed(registration.service.onLoopback))
    }

    @Test func releasingARegistrationWithdrawsTheService() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let holder = NIOLockedValueBox<DNSSDRegistration?>(
            try await DNSSDRegistration.register(name: name, type: type, port: 4244))
        let service = try #require(holder.withLockedValue { $0?.service.onLoopback })

        let events = try await appearThenVanish(type: type) {
            holder.withLockedValue { $0 = nil }  // the last reference: the service is withdrawn
        }
        #expect(events.added == .added(service))
        #expect(events.removed == .removed(service))
    }

    @Test func aTakenNameIsRenamedAndTheNewNameReported() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let first = try await DNSSDRegistration.register(name: name, type: type, port: 4245)
        let second = try await DNSSDRegistration.register(name: name, type: type, port: 4246)
        #expect(first.name == name)
        #expect(second.name != name)
        #expect(second.wasRenamed)
        #expect(second.requestedName == name)
        #expect(second.name == "\(name) (2)")

        // Both are advertised, each under its own name.
        let browser = DNSSDBrowser(type: type)
        _ = try await browser.first("the renamed service") { $0 == .added(second.service.onLoopback) }
        let resolved = try await second.service.resolve()
        #expect(resolved.port == 4246)
        first.cancel()
        second.cancel()
    }

    @Test func aTakenNameFailsWhenRenamingIsNotAllowed() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let first = try await DNSSDRegistration.register(name: name, type: type, port: 4247)
        do {
            let second = try await DNSSDRegistration.register(
                name: name, type: type, port: 4248, renameOnConflict: false)
            Issue.record("registered \(second.name) although the name was taken")
        } catch let error as DNSSDError {
            #expect(error.code == .nameConflict)
            #expect(error.daemonErrorName == "kDNSServiceErr_NameConflict")
            #expect(error.description.contains(name), "\(error)")
        }
        first.cancel()
    }

    @Test func theTXTRecordCanBeUpdatedWhileRegistered() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let registration = try await DNSSDRegistration.register(
            name: uniqueServiceName(), type: type, port: 4249, txtRecord: ["state": "starting"])
        try await registration.updateTXTRecord(["state": "ready", "load": .data(Data([0]))])
        #expect(registration.txtRecord["state"]?.string == "ready")

        // Resolvers see the new record (a resolve may still find the old one for a moment).
        let updated: DNSSDTXTRecord = ["state": "ready", "load": .data(Data([0]))]
        var seen = try await registration.service.resolve().txtRecord
        for _ in 0..<50 where seen != updated {
            seen = try await registration.service.resolve().txtRecord
        }
        #expect(seen == updated)
        registration.cancel()
        await #expect(throws: DNSSDError.self) { try await registration.updateTXTRecord(["state": "gone"]) }
    }

    @Test func badInputIsRejectedBeforeReachingTheDaemon() async throws {
        try await requireDaemon()
        for type in ["http._tcp", "_http._sctp", "_http", "_averyveryverylongname._tcp"] {
            let error = await #expect(throws: DNSSDError.self) {
                try await DNSSDRegistration.register(name: "x", type: type, port: 1)
            }
            #expect(error?.code == .invalidArgument, "\(type): \(String(describing: error))")
        }
        let port = await #expect(throws: DNSSDError.self) {
            try await DNSSDRegistration.register(name: "x", type: "_ok._tcp", port: 70000)
        }
        #expect(port?.code == .invalidArgument)
        let txt = await #expect(throws: DNSSDError.self) {
            try await DNSSDRegistration.register(name: "x", type: "_ok._tcp", port: 1, txtRecord: ["a=b": "c"])
        }
        #expect(txt?.code == .invalidTXTRecord)
        let browse = await #expect(throws: DNSSDError.self) {
            for try await _ in DNSSDBrowser(type: "nonsense") {}
        }
        #expect(browse?.code == .invalidArgument)
    }
}

extension DNSSDService {
    /// The same service as a browse on the test daemon reports it: seen on `lo`.
    var onLoopback: DNSSDService {
        DNSSDService(name: name, type: type, domain: domain, interface: DNSSDInterface(name: "lo")!)
    }
}
