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
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// Foundation's `NetService` and `NetServiceBrowser` against the real avahi-daemon (loopback
/// only; see scripts/start-services.sh), written as a Darwin program uses them: delegate
/// objects, and a run loop that runs until the calls have come. Each test runs on a thread of
/// its own, whose run loop the objects belong to, and asserts once that thread is done.
@Suite(.timeLimit(.minutes(1))) struct NetServiceTests {
    struct FoundAndResolved: Sendable {
        let publisher = DelegateRecorder()
        let browsing = DelegateRecorder()
        let resolving = DelegateRecorder()
        let runLoop = ObjectIdentifier(RunLoop.current)
        let thread = ObjectIdentifier(Thread.current)
        var publishedName = "", foundType = "", foundDomain = "", hostName: String?
        var port = -1
        var addresses: [Data]?
        var txt: [String: Data]?
        var removedTheServiceFound = false
        var txtAccepted = false
    }

    @Test func aPublishedServiceIsFoundResolvedAndRemoved() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let txt = ["path": Data("/chat".utf8), "bin": Data([0, 0xFF]), "empty": Data()]
        let run = await offCooperativePool { () -> FoundAndResolved in
            var run = FoundAndResolved()
            let service = NetService(domain: "", type: type + ".", name: name, port: 4250)
            service.delegate = run.publisher
            run.txtAccepted = service.setTXTRecord(NetService.data(fromTXTRecord: txt))
            service.publish()
            _ = runCurrentRunLoop(upTo: 10) { run.publisher.saw("didPublish") || run.publisher.saw("didNotPublish") }
            run.publishedName = service.name

            let browser = NetServiceBrowser()
            browser.delegate = run.browsing
            browser.searchForServices(ofType: type + ".", inDomain: "local.")
            guard runCurrentRunLoop(upTo: 10, until: { run.browsing.found(name) != nil }),
                let found = run.browsing.found(name)
            else { return run }
            run.foundType = found.type
            run.foundDomain = found.domain
            found.delegate = run.resolving
            found.resolve(withTimeout: 5)
            _ = runCurrentRunLoop(upTo: 10) {
                run.resolving.saw("didResolveAddress") || run.resolving.saw("didNotResolve")
            }
            run.hostName = found.hostName
            run.port = found.port
            run.addresses = found.addresses
            run.txt = found.txtRecordData().map { NetService.dictionary(fromTXTRecord: $0) }

            found.stop()
            service.stop()
            _ = runCurrentRunLoop(upTo: 10) {
                run.publisher.saw("didStop") && run.resolving.saw("didStop") && run.browsing.saw("didRemove")
            }
            run.removedTheServiceFound = run.browsing.calls("didRemove").first?.service === found
            browser.stop()
            _ = runCurrentRunLoop(upTo: 5) { run.browsing.saw("didStopSearch") }
            return run
        }
        #expect(run.txtAccepted)
        #expect(run.publisher.names == ["willPublish", "didPublish", "didStop"])
        #expect(run.publishedName == name)
        #expect(run.browsing.names == ["willSearch", "didFind", "didRemove", "didStopSearch"])
        #expect(run.browsing.calls("didFind").first?.moreComing == false, "one service: nothing more was coming")
        #expect(run.foundType == type + ".", "Darwin reports the type with its trailing dot")
        #expect(run.foundDomain == "local.")
        #expect(run.resolving.names == ["willResolve", "didResolveAddress", "didStop"])
        #expect(run.hostName?.hasSuffix(".local.") == true, "\(String(describing: run.hostName))")
        #expect(run.port == 4250)
        let addresses = try #require(run.addresses).map(parseSocketAddress)
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0?.port == 4250 }, "\(addresses)")
        #expect(addresses.contains { $0?.family == AF_INET && $0?.host == "127.0.0.1" }, "\(addresses)")
        #expect(run.txt == txt)
        #expect(run.removedTheServiceFound, "didRemove reports the object didFind gave")
        let everyCall = run.publisher.recorded + run.browsing.recorded + run.resolving.recorded
        #expect(everyCall.allSatisfy { $0.runLoop == run.runLoop && $0.thread == run.thread })
    }

    struct Collision: Sendable {
        let recorders = (first: DelegateRecorder(), strict: DelegateRecorder(), renaming: DelegateRecorder())
        var renamedTo = ""
    }

    @Test func aTakenNameFailsWithNoAutoRenameAndIsRenamedWithout() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let run = await offCooperativePool { () -> Collision in
            var run = Collision()
            let first = NetService(domain: "local.", type: type, name: name, port: 4251)
            first.delegate = run.recorders.first
            first.publish()
            _ = runCurrentRunLoop(upTo: 10) { run.recorders.first.saw("didPublish") }
            let strict = NetService(domain: "local.", type: type, name: name, port: 4252)
            strict.delegate = run.recorders.strict
            strict.publish(options: .noAutoRename)
            let renaming = NetService(domain: "local.", type: type, name: name, port: 4253)
            renaming.delegate = run.recorders.renaming
            renaming.publish()
            _ = runCurrentRunLoop(upTo: 10) {
                run.recorders.strict.saw("didNotPublish") && run.recorders.renaming.saw("didPublish")
            }
            run.renamedTo = renaming.name
            [first, strict, renaming].forEach { $0.stop() }
            return run
        }
        #expect(run.recorders.first.names.prefix(2) == ["willPublish", "didPublish"])
        #expect(run.recorders.strict.names == ["willPublish", "didNotPublish"], "a failed publish has nothing to stop")
        let failure = try #require(run.recorders.strict.calls("didNotPublish").first)
        #expect(failure.errorCode == NetService.ErrorCode.collisionError.rawValue)
        #expect(failure.errorDomain == 10)
        #expect(run.recorders.renaming.names.prefix(2) == ["willPublish", "didPublish"])
        #expect(run.renamedTo != name && run.renamedTo.hasPrefix(name), "renamed to \(run.renamedTo)")
    }

    struct Unresolved: Sendable {
        let resolving = DelegateRecorder()
        var elapsed = 0.0
        var addresses: [Data]?
        var hostName: String?
        var port = 0
    }

    @Test func resolvingAServiceThatDoesNotExistTimesOut() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let run = await offCooperativePool { () -> Unresolved in
            var run = Unresolved()
            let service = NetService(domain: "local.", type: type, name: "Nobody Is Here")
            service.delegate = run.resolving
            let start = Date()
            service.resolve(withTimeout: 2)
            _ = runCurrentRunLoop(upTo: 15) { run.resolving.saw("didNotResolve") }
            run.elapsed = Date().timeIntervalSince(start)
            run.addresses = service.addresses
            run.hostName = service.hostName
            run.port = service.port
            return run
        }
        #expect(run.resolving.names == ["willResolve", "didNotResolve"])
        let failure = try #require(run.resolving.calls("didNotResolve").first)
        #expect(failure.errorCode == NetService.ErrorCode.timeoutError.rawValue)
        #expect(failure.errorDomain == 10)
        #expect(run.elapsed >= 1.9, "reported when the 2 s were up, not before: \(run.elapsed) s")
        #expect(run.addresses == nil)
        #expect(run.hostName == nil)
        #expect(run.port == -1)
    }

    struct Endless: Sendable {
        let publisher = DelegateRecorder()
        let resolving = DelegateRecorder()
        var beforeStop: [String] = []
        var port = -1
    }

    /// Apple: a timeout of 0 "indicates no timeout and a resolve process of indefinite duration".
    @Test func aResolveWithTimeoutZeroHasNoneAndGoesOnUntilStopped() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let run = await offCooperativePool { () -> Endless in
            var run = Endless()
            let service = NetService(domain: "local.", type: type, name: name, port: 4255)
            service.delegate = run.publisher
            service.publish()
            _ = runCurrentRunLoop(upTo: 10) { run.publisher.saw("didPublish") }
            let resolving = NetService(domain: "local.", type: type, name: name)
            resolving.delegate = run.resolving
            resolving.resolve(withTimeout: 0)
            _ = runCurrentRunLoop(upTo: 10) {
                run.resolving.saw("didResolveAddress") || run.resolving.saw("didNotResolve")
            }
            // Past the moment a resolve with a timeout would have stopped.
            _ = runCurrentRunLoop(upTo: 1.5) { run.resolving.saw("didStop") }
            run.beforeStop = run.resolving.names
            run.port = resolving.port
            resolving.stop()
            service.stop()
            _ = runCurrentRunLoop(upTo: 5) { run.resolving.saw("didStop") }
            return run
        }
        #expect(run.beforeStop == ["willResolve", "didResolveAddress"])
        #expect(run.port == 4255)
        #expect(run.resolving.names == ["willResolve", "didResolveAddress", "didStop"])
    }

    struct Batch: Sendable {
        let browsing = DelegateRecorder()
        var names: Set<String> = []
    }

    @Test func threeServicesAreFoundAndTheLastReportSaysNothingMoreIsComing() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let names = Set((1...3).map { uniqueServiceName("NetService batch \($0)") })
        let run = await offCooperativePool { () -> Batch in
            var run = Batch()
            let publisher = DelegateRecorder()
            let services = names.map { NetService(domain: "", type: type, name: $0, port: 4254) }
            for service in services {
                service.delegate = publisher
                service.publish()
            }
            _ = runCurrentRunLoop(upTo: 10) { publisher.calls("didPublish").count == 3 }
            let browser = NetServiceBrowser()
            browser.delegate = run.browsing
            browser.searchForServices(ofType: type, inDomain: "")
            _ = runCurrentRunLoop(upTo: 10) { run.browsing.calls("didFind").count == 3 }
            run.names = Set(run.browsing.calls("didFind").compactMap { $0.service?.name })
            browser.stop()
            services.forEach { $0.stop() }
            return run
        }
        #expect(run.names == names)
        #expect(run.browsing.calls("didFind").last?.moreComing == false)
    }
}
#endif
