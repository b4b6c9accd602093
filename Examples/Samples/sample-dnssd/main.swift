//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// sample: README.md 6
import Foundation
import StreamTaskDNSSD
import StreamTaskKit

do {
    // Advertise a listener as a service (the name gets " (2)" if it is taken).
    let listener = StreamListener(host: "0.0.0.0", port: 0)
    try await listener.start()
    let registration = try await listener.advertise(name: "Team Chat", type: "_chat._tcp",
                                                    txtRecord: ["version": "2"])
    print("advertised as", registration.name)

    // Browse: an AsyncSequence of services appearing and going away, per interface.
    for try await event in DNSSDBrowser(type: "_chat._tcp") {
        guard case .added(let service) = event else { continue }
        let resolved = try await service.resolve(timeout: 5)  // host, port, TXT record, addresses
        print(service.name, "on", service.interface, resolved.txtRecord["version"]?.string ?? "-")

        // Resolves, then tries each address until one connects; returns the task connected.
        let task = try await StreamSession().streamTask(with: service)
        try await task.write(Data("hello\n".utf8), timeout: 5)
        break
    }
    try await registration.updateTXTRecord(["version": "2", "busy": .keyOnly])
    registration.cancel()  // withdraws the service (so does releasing the registration)
} catch {
    // One line on standard error (with no daemon, it says how to start one), and a failure.
    FileHandle.standardError.write(Data("sample-dnssd: \(error)\n".utf8))
    exit(1)
}
// end sample
