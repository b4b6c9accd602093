//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation
import NIOConcurrencyHelpers
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// A service that publishes or resolves, and a browser that searches, keep their run loop
/// running, as their Darwin run-loop sources do, until they stop: a thread that only calls
/// `RunLoop.current.run()` hears from them, and its `run()` returns once they are done.
@Suite(.timeLimit(.minutes(1))) struct NetServiceRunningRunLoopTests {
    /// A Darwin program's network thread: publishes a service, then browses for it, and once
    /// found resolves it and stops all three. It is used on its run loop's thread only.
    final class PublishFindResolve: NSObject, NetServiceDelegate, NetServiceBrowserDelegate, @unchecked Sendable {
        let type: String
        let name: String
        let recorder = DelegateRecorder()
        private var service: NetService?
        private var browser: NetServiceBrowser?
        private var found: NetService?

        init(type: String, name: String) {
            self.type = type
            self.name = name
        }

        func start() {
            let service = NetService(domain: "", type: type, name: name, port: 4256)
            service.delegate = self
            service.publish()
            self.service = service
        }

        func netServiceDidPublish(_ sender: NetService) {
            recorder.netServiceDidPublish(sender)
            let browser = NetServiceBrowser()
            browser.delegate = self
            browser.searchForServices(ofType: type, inDomain: "local.")
            self.browser = browser
        }

        func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
            recorder.netServiceBrowser(browser, didFind: service, moreComing: moreComing)
            guard service.name == name, found == nil else { return }
            browser.stop()
            found = service
            service.delegate = self
            service.resolve(withTimeout: 10)
        }

        func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) {
            recorder.netServiceBrowserDidStopSearch(browser)
        }

        func netServiceDidResolveAddress(_ sender: NetService) {
            recorder.netServiceDidResolveAddress(sender)
            sender.stop()
            service?.stop()
        }

        func netServiceDidStop(_ sender: NetService) {
            recorder.netServiceDidStop(sender)
        }
    }

    @Test func aThreadThatOnlyRunsItsRunLoopHearsFromItsServicesUntilTheyStop() async throws {
        try await requireDaemon()
        let program = PublishFindResolve(type: uniqueServiceType(), name: uniqueServiceName())
        let thread = RunLoopOnlyThread { program.start() }
        let returned = await offCooperativePool {
            // Its objects belong to its thread: should the run loop not run dry, the test fails
            // and the thread is left running.
            thread.waitForRunToReturn(within: 30) { _ in }
        }
        let names = program.recorder.names
        #expect(names.contains("didPublish"))
        #expect(names.contains("didFind"))
        #expect(names.contains("didStopSearch"))
        #expect(names.contains("didResolveAddress"))
        // The resolved service and the published one each stopped.
        #expect(names.filter { $0 == "didStop" }.count == 2)
        #expect(returned)
    }

    /// Each result ends one turn of `run(mode:before:)`, as a Darwin service's source does: a
    /// thread that turns its run loop until its service has published stops turning then,
    /// rather than at the limit date, with the service still published.
    @Test func eachResultEndsOneTurnOfTheRunLoop() async throws {
        try await requireDaemon()
        let recorder = DelegateRecorder()
        let outcome = NIOLockedValueBox<(names: [String], seconds: Double)?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let (type, name) = (uniqueServiceType(), uniqueServiceName())
        let thread = Thread {
            let service = NetService(domain: "", type: type, name: name, port: 4257)
            service.delegate = recorder
            service.publish()
            let start = Date()
            while !recorder.names.contains("didPublish")
                && RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 20))
            {}
            outcome.withLockedValue { $0 = (recorder.names, Date().timeIntervalSince(start)) }
            service.stop()
            ended.signal()
        }
        thread.start()
        let finished = await offCooperativePool { ended.wait(timeout: .now() + 30) == .success }
        #expect(finished)
        let (names, seconds) = try #require(outcome.withLockedValue { $0 })
        #expect(names.contains("didPublish"))
        // Woken by the result's delivery, not by the limit 20 s away.
        #expect(seconds < 15, "run(mode:before:) returned after \(seconds) s")
    }
}
#endif
