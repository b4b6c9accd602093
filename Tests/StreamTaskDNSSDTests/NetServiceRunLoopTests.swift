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

/// Where and when `NetService` and `NetServiceBrowser` call their delegates: on the run loop
/// they are scheduled in; not after they are released; stop and error reports.
@Suite(.timeLimit(.minutes(1))) struct NetServiceRunLoopTests {
    /// A thread that runs its run loop until told to stop, as a Darwin program's network thread.
    final class RunLoopThread: @unchecked Sendable {
        // @unchecked Sendable: `runLoop` is written once before `ready` is signalled, and the
        // flag is behind its lock.
        private(set) var runLoop: RunLoop!
        private(set) var thread: Thread!
        private let ready = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)
        private let stopping = NIOLockedValueBox(false)

        init() {
            let thread = Thread { [self] in
                runLoop = RunLoop.current
                ready.signal()
                while !stopping.withLockedValue({ $0 }) {
                    RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
                }
                done.signal()
            }
            self.thread = thread
            thread.start()
            ready.wait()
        }

        func stop() {
            stopping.withLockedValue { $0 = true }
            done.wait()
        }
    }

    struct Elsewhere: Sendable {
        let browsing = DelegateRecorder(stopsBrowserOnFind: true)
        let publisher = DelegateRecorder()
        let ownRunLoop = ObjectIdentifier(RunLoop.current)
        var otherRunLoop: ObjectIdentifier?
        var otherThread: ObjectIdentifier?
    }

    @Test func callbacksArriveOnTheRunLoopTheObjectIsScheduledIn() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let run = await offCooperativePool { () -> Elsewhere in
            var run = Elsewhere()
            let other = RunLoopThread()
            defer { other.stop() }
            run.otherRunLoop = ObjectIdentifier(other.runLoop)
            run.otherThread = ObjectIdentifier(other.thread)
            let service = NetService(domain: "", type: type, name: name, port: 4255)
            service.delegate = run.publisher
            service.publish()
            let browser = NetServiceBrowser()
            browser.delegate = run.browsing
            browser.schedule(in: other.runLoop, forMode: .default)
            browser.remove(from: .current, forMode: .default)
            browser.searchForServices(ofType: type, inDomain: "local.")
            // This thread's run loop runs too, but only the other one may deliver the browser's
            // calls; the browser is used there only (its delegate stops it), as Foundation asks.
            _ = runCurrentRunLoop(upTo: 10) { run.browsing.saw("didStopSearch") && run.publisher.saw("didPublish") }
            service.stop()
            _ = runCurrentRunLoop(upTo: 5) { run.publisher.saw("didStop") }
            return run
        }
        #expect(run.browsing.names == ["willSearch", "didFind", "didStopSearch"])
        #expect(run.browsing.recorded.allSatisfy { $0.runLoop == run.otherRunLoop && $0.thread == run.otherThread })
        #expect(run.publisher.names == ["willPublish", "didPublish", "didStop"])
        #expect(run.publisher.recorded.allSatisfy { $0.runLoop == run.ownRunLoop }, "the service stayed where it was")
    }

    struct Released: Sendable {
        let browsing = DelegateRecorder()
        let publisher = DelegateRecorder()
        var serviceFreed = false
        var browserFreed = false
    }

    @Test func aReleasedServiceIsWithdrawnAndFreed() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let run = await offCooperativePool { () -> Released in
            var run = Released()
            var service: NetService? = NetService(domain: "", type: type, name: name, port: 4256)
            weak let weakService = service
            service?.delegate = run.publisher
            service?.publish()
            var browser: NetServiceBrowser? = NetServiceBrowser()
            weak let weakBrowser = browser
            browser?.delegate = run.browsing
            browser?.searchForServices(ofType: type, inDomain: "local.")
            _ = runCurrentRunLoop(upTo: 10) { run.browsing.found(name) != nil && run.publisher.saw("didPublish") }
            service = nil  // the last reference: the service is withdrawn
            run.serviceFreed = weakService == nil
            _ = runCurrentRunLoop(upTo: 10) { run.browsing.saw("didRemove") }
            browser = nil
            run.browserFreed = weakBrowser == nil
            return run
        }
        #expect(run.serviceFreed, "no operation keeps a released service alive")
        #expect(run.publisher.names == ["willPublish", "didPublish"], "a released service calls no delegate")
        #expect(run.browsing.names == ["willSearch", "didFind", "didRemove"])
        #expect(run.browsing.calls("didRemove").first?.service?.name == name)
        #expect(run.browserFreed, "no operation keeps a released browser alive")
    }

    @Test func aBrowserReportsBadTypesBusySearchesAndTheLocalDomain() async throws {
        try await requireDaemon()
        let (bad, busy, domains) = await offCooperativePool {
            () -> (DelegateRecorder, DelegateRecorder, DelegateRecorder) in
            let (bad, busy, domains) = (DelegateRecorder(), DelegateRecorder(), DelegateRecorder())
            let badBrowser = NetServiceBrowser()
            badBrowser.delegate = bad
            badBrowser.searchForServices(ofType: "not a type", inDomain: "")
            let busyBrowser = NetServiceBrowser()
            busyBrowser.delegate = busy
            busyBrowser.searchForServices(ofType: uniqueServiceType(), inDomain: "")
            busyBrowser.searchForBrowsableDomains()
            let domainBrowser = NetServiceBrowser()
            domainBrowser.delegate = domains
            domainBrowser.searchForRegistrationDomains()
            _ = runCurrentRunLoop(upTo: 10) {
                bad.saw("didNotSearch") && busy.saw("didNotSearch") && domains.saw("didFindDomain")
            }
            busyBrowser.stop()
            badBrowser.stop()  // no search is under way: nothing to report
            _ = runCurrentRunLoop(upTo: 5) { busy.saw("didStopSearch") }
            return (bad, busy, domains)
        }
        #expect(bad.names == ["willSearch", "didNotSearch"])
        #expect(bad.calls("didNotSearch").first?.errorCode == NetService.ErrorCode.badArgumentError.rawValue)
        #expect(busy.names == ["willSearch", "didNotSearch", "didStopSearch"])
        #expect(busy.calls("didNotSearch").first?.errorCode == NetService.ErrorCode.activityInProgress.rawValue)
        let domain = try #require(domains.calls("didFindDomain").first)
        #expect(domain.data == Data("local.".utf8))
        #expect(domain.moreComing == false)
    }

    struct Monitored: Sendable {
        let monitoring = DelegateRecorder()
        var updateAccepted = false
    }

    @Test func monitoringReportsTheTXTRecordAndItsChanges() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let before = ["version": Data("1".utf8)]
        let after = ["version": Data("2".utf8), "busy": Data()]
        let run = await offCooperativePool { () -> Monitored in
            var run = Monitored()
            let publisher = DelegateRecorder()
            let service = NetService(domain: "", type: type, name: name, port: 4257)
            service.delegate = publisher
            _ = service.setTXTRecord(NetService.data(fromTXTRecord: before))
            service.publish()
            _ = runCurrentRunLoop(upTo: 10) { publisher.saw("didPublish") }
            let watched = NetService(domain: "local.", type: type, name: name)
            watched.delegate = run.monitoring
            watched.startMonitoring()
            _ = runCurrentRunLoop(upTo: 10) { run.monitoring.saw("didUpdateTXTRecord") }
            run.updateAccepted = service.setTXTRecord(NetService.data(fromTXTRecord: after))
            _ = runCurrentRunLoop(upTo: 10) {
                run.monitoring.calls("didUpdateTXTRecord").contains {
                    $0.data.map { NetService.dictionary(fromTXTRecord: $0) } == after
                }
            }
            watched.stopMonitoring()
            service.stop()
            return run
        }
        let records = run.monitoring.calls("didUpdateTXTRecord").compactMap(\.data).map {
            NetService.dictionary(fromTXTRecord: $0)
        }
        #expect(records.first == before)
        #expect(run.updateAccepted)
        #expect(records.last == after, "\(records)")
    }
}
#endif
