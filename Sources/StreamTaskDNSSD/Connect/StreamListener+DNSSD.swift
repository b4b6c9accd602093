//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import StreamTaskCore

extension StreamListener {
    /// Advertises the listener as a DNS-SD service on its port, so that browsers find it and
    /// `StreamSession.streamTask(with:)` connects to it.
    ///
    /// ```swift
    /// let listener = StreamListener(host: "0.0.0.0", port: 0)
    /// try await listener.start()
    /// let registration = try await listener.advertise(name: "Team Chat", type: "_chat._tcp")
    /// // … serve listener.connections …
    /// registration.cancel()
    /// await listener.shutdown()
    /// ```
    ///
    /// The service advertises the computer's host name and addresses, so bind an address that
    /// browsers can reach (`0.0.0.0` or `::` for every interface). Keep the registration while
    /// the listener serves: cancelling or releasing it withdraws the service; shutting down the
    /// listener does not.
    ///
    /// - Parameters:
    ///   - name: The instance name; `nil` lets the daemon use the computer's name.
    ///   - type: The service type, `_name._tcp`.
    ///   - domain: The domain; `nil` for the default (`local.`).
    ///   - txtRecord: The TXT record to publish.
    ///   - interface: Where to advertise; every interface the daemon uses by default.
    /// - Throws: ``DNSSDError/Code/invalidArgument`` when the listener has not been started;
    ///   otherwise as ``DNSSDRegistration/register(name:type:domain:port:txtRecord:interface:renameOnConflict:)``.
    public func advertise(
        name: String? = nil,
        type: String,
        domain: String? = nil,
        txtRecord: DNSSDTXTRecord = DNSSDTXTRecord(),
        interface: DNSSDInterface = .any
    ) async throws -> DNSSDRegistration {
        guard let port else {
            throw DNSSDError.invalidArgument("start the listener before advertising it: it has no port yet")
        }
        return try await DNSSDRegistration.register(
            name: name, type: type, domain: domain, port: port, txtRecord: txtRecord, interface: interface)
    }
}
