//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskDNSSD
import StreamTaskKit

// Sources/StreamTaskDNSSD/Docs.docc.

func dnssdLandingPage() async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/StreamTaskDNSSD.md 1
    // Advertise a listener…
    let listener = StreamListener(host: "0.0.0.0", port: 0)
    try await listener.start()
    let registration = try await listener.advertise(name: "Team Chat", type: "_chat._tcp")

    // …and, elsewhere, find it and connect.
    for try await event in DNSSDBrowser(type: "_chat._tcp") {
        guard case .added(let service) = event else { continue }
        let task = try await StreamSession().streamTask(with: service)
        try await task.write(Data("hello\n".utf8), timeout: 5)
        break
    }
    // end sample
    _ = registration
}

func discoveringDaemon() async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/DiscoveringServices.md 1
    try await DNSSDDaemon.checkReachable()
    // end sample
}

func discoveringBrowse() async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/DiscoveringServices.md 2
    for try await event in DNSSDBrowser(type: "_chat._tcp") {
        switch event {
        case .added(let service):
            print("found \(service.name) on \(service.interface)")
        case .removed(let service):
            print("\(service.name) went away")
        }
    }
    // end sample
}

func discoveringResolve(service: DNSSDService) async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/DiscoveringServices.md 3
    let resolved = try await service.resolve(timeout: 5)
    print(resolved.hostName, resolved.port, resolved.addresses)
    if let version = resolved.txtRecord["version"]?.string { print("version", version) }
    // end sample
}

func discoveringConnect(session: StreamSession, service: DNSSDService) async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/DiscoveringServices.md 4
    let task = try await session.streamTask(with: service)
    try await task.write(Data("hello\n".utf8), timeout: 5)
    // end sample
}

func discoveringAdvertise() async throws {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/DiscoveringServices.md 5
    let listener = StreamListener(host: "0.0.0.0", port: 0)
    try await listener.start()
    let registration = try await listener.advertise(
        name: "Team Chat", type: "_chat._tcp", txtRecord: ["version": "2"])
    print("advertised as", registration.name)
    // end sample
}

// sample: Sources/StreamTaskDNSSD/Docs.docc/NetServiceOnLinux.md 1
final class ChatFinder: NSObject, NetServiceBrowserDelegate, NetServiceDelegate {
    let browser = NetServiceBrowser()
    var resolving: [NetService] = []

    func start() {
        browser.delegate = self
        browser.searchForServices(ofType: "_chat._tcp.", inDomain: "local.")
    }

    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        resolving.append(service)
        service.delegate = self
        service.resolve(withTimeout: 5)
    }

    func netServiceDidResolveAddress(_ sender: NetService) {
        let txt = sender.txtRecordData().map { NetService.dictionary(fromTXTRecord: $0) } ?? [:]
        print(sender.name, sender.hostName ?? "?", sender.port, txt.keys.sorted())
    }
}
// end sample

func netServiceOnLinux() {
    // sample: Sources/StreamTaskDNSSD/Docs.docc/NetServiceOnLinux.md 2
    let finder = ChatFinder()
    finder.start()
    RunLoop.main.run()  // the delegate methods are called here
    // end sample
}
