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
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// The services state file of the avahi-daemon that scripts/test.sh started for this run, if
/// any: restarting a daemon is allowed only for one our own scripts started.
private let servicesState = ProcessInfo.processInfo.environment["STK_SERVICES_STATE"]

/// avahi-daemon restarting while a browse runs. This restarts the daemon, which would disturb
/// every other DNS-SD test running at the same time, so scripts/test.sh runs it on its own
/// after the main run, naming the daemon it started in `STK_SERVICES_STATE`. Run without it,
/// Swift Testing lists it as skipped, with this reason.
@Suite(
    .serialized,
    .timeLimit(.minutes(2)),
    .enabled(
        if: servicesState != nil,
        "restarts avahi-daemon, so it runs only from scripts/test.sh (STK_SERVICES_STATE names the daemon that script started)"
    )
)
struct DaemonRestartTests {
    @Test func aBrowseReportsTheDaemonGoingAwayAndBrowsingWorksAgainAfterItsRestart() async throws {
        try await requireDaemon()
        let state = try #require(servicesState)
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(name: name, type: type, port: 4250)

        // A browse that has seen the service, then keeps going.
        let outcome = NIOLockedValueBox<String?>(nil)
        let seen = NIOLockedValueBox(false)
        let browsing = Task {
            do {
                for try await event in DNSSDBrowser(type: type) where event.service.name == name {
                    if case .added = event { seen.withLockedValue { $0 = true } }
                }
                outcome.withLockedValue { $0 = "ended without an error" }
            } catch let error as DNSSDError {
                outcome.withLockedValue { $0 = "DNSSDError \(error.code): \(error)" }
            } catch {
                outcome.withLockedValue { $0 = "other error: \(error)" }
            }
        }
        #expect(await eventually(30) { seen.withLockedValue { $0 } }, "the browse never saw the service")

        try await restartDaemon(stateFile: state)

        #expect(
            await eventually(30) { outcome.withLockedValue { $0 } != nil },
            "the browse did not report the daemon going away")
        let reported = outcome.withLockedValue { $0 } ?? ""
        #expect(reported.hasPrefix("DNSSDError"), "\(reported)")
        browsing.cancel()
        registration.cancel()

        // The daemon is back: registering and browsing work again, without restarting anything
        // in this process.
        try await requireDaemon()
        let again = try await DNSSDRegistration.register(name: name, type: type, port: 4251)
        let event = try await DNSSDBrowser(type: type).first("the service after the restart") {
            $0.service.name == name
        }
        guard case .added = event else {
            Issue.record("expected the service to be added again, got \(event)")
            return
        }
        again.cancel()
    }

    /// A registration kept across the restart: it reports the interruption, registers again
    /// by itself once the daemon is back, and browsers see it again under its name and port.
    @Test func aRegistrationIsAdvertisedAgainAfterTheDaemonRestarts() async throws {
        try await requireDaemon()
        let state = try #require(servicesState)
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let registration = try await DNSSDRegistration.register(name: name, type: type, port: 4252)
        #expect(registration.interruption == nil)

        try await restartDaemon(stateFile: state) {
            // Checked while the daemon is down: the interruption stays until the service is
            // registered again, which a watcher polling from the side could miss if starved.
            #expect(
                await eventually { registration.interruption != nil }, "the interruption was never reported")
        }
        try await requireDaemon()

        let event = try await DNSSDBrowser(type: type).first("the service, advertised again") {
            $0.service.name == name
        }
        guard case .added(let service) = event else {
            Issue.record("expected the service to be added again, got \(event)")
            return
        }
        #expect(try await service.resolve().port == 4252)
        #expect(await eventually(30) { registration.interruption == nil })
        #expect(registration.name == name)
        registration.cancel()
    }

    /// Stops the avahi-daemon that scripts/start-services.sh started (its PID is the last
    /// `avahi-daemon` line of `stateFile`), runs `whileStopped` once it is gone, then starts a
    /// new one the same way; the state file then names the new one, so
    /// scripts/stop-services.sh stops it at the end.
    private func restartDaemon(stateFile: String, whileStopped: () async -> Void = {}) async throws {
        let lines = try String(contentsOfFile: stateFile, encoding: .utf8).split(separator: "\n")
        let pidText = try #require(
            lines.last { $0.hasPrefix("avahi-daemon ") }?.split(separator: " ").last,
            "no avahi-daemon in \(stateFile): the test daemon was not started by our scripts")
        let pid = try #require(pid_t(pidText))
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        try #require(
            command?.hasPrefix("avahi-daemon") == true, "pid \(pid) is \(command ?? "gone"), not our avahi-daemon")
        kill(pid, SIGTERM)
        #expect(await eventually(20) { kill(pid, 0) != 0 }, "avahi-daemon (pid \(pid)) did not stop")
        await whileStopped()

        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/start-services.sh").path
        let run = await offCooperativePool {
            try? ChildProcess.runToEnd(
                "/bin/bash", [script, "--state", stateFile], in: FileManager.default.temporaryDirectory.path)
        }
        try #require(
            run?.exitCode == 0, "scripts/start-services.sh could not start avahi-daemon again: \(run?.output ?? "")")
    }
}
