//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A service this program advertises, from ``register(name:type:domain:port:txtRecord:interface:renameOnConflict:)``
/// until ``cancel()`` or until the registration is released.
///
/// ```swift
/// let registration = try await DNSSDRegistration.register(
///     name: "Team Chat", type: "_chat._tcp", port: 7007, txtRecord: ["version": "2"])
/// print("advertised as", registration.name)  // "Team Chat (2)" if the name was taken
/// try await registration.updateTXTRecord(["version": "2", "busy": .keyOnly])
/// registration.cancel()  // withdraws the service
/// ```
///
/// Keep the registration while the service should stay advertised: releasing it withdraws the
/// service, as ``cancel()`` does.
///
/// If the daemon goes away (avahi-daemon restarts, say), the service is no longer advertised:
/// ``interruption`` says why, and the registration registers the service again, under the name
/// it had, as soon as the daemon answers (trying after half a second, then at growing intervals
/// up to ten seconds), until you cancel it.
public final class DNSSDRegistration: Sendable, CustomStringConvertible {
    private let operation: RegisterOperation

    private init(operation: RegisterOperation) {
        self.operation = operation
    }

    /// Advertises a service and returns once the daemon has registered it.
    ///
    /// If the name is already taken, the service is registered as `Name (2)`, `Name (3)`, …
    /// (the daemon may pick its own alternative instead, such as Avahi's `Name #2` after a
    /// conflict with another host); ``name`` tells the name it ended up with. The daemon may
    /// also rename the service later, when another host claims the name; ``name`` follows.
    ///
    /// - Parameters:
    ///   - name: The instance name, up to 63 bytes of UTF-8; `nil` lets the daemon use the
    ///     computer's name.
    ///   - type: The service type, `_name._tcp` or `_name._udp`.
    ///   - domain: The domain; `nil` for the default (`local.`, multicast DNS).
    ///   - port: The port the service listens on, 1 to 65535.
    ///   - txtRecord: The TXT record to publish with it.
    ///   - interface: Where to advertise; every interface the daemon uses by default.
    ///   - renameOnConflict: Whether to pick another name when `name` is taken; when `false`, a
    ///     taken name fails with ``DNSSDError/Code/nameConflict``.
    /// - Throws: ``DNSSDError``: for example ``DNSSDError/Code/serviceNotRunning`` when no daemon
    ///   answers, ``DNSSDError/Code/invalidArgument`` or ``DNSSDError/Code/invalidTXTRecord``
    ///   for bad input, ``DNSSDError/Code/cancelled`` when the Swift task is cancelled.
    public static func register(
        name: String? = nil,
        type: String,
        domain: String? = nil,
        port: Int,
        txtRecord: DNSSDTXTRecord = DNSSDTXTRecord(),
        interface: DNSSDInterface = .any,
        renameOnConflict: Bool = true
    ) async throws -> DNSSDRegistration {
        let operation = RegisterOperation(
            name: name,
            type: DNSSDService.normalizedType(type),
            domain: domain.map(DNSSDService.normalizedDomain),
            port: port,
            txtRecord: txtRecord,
            interface: interface,
            renameOnConflict: renameOnConflict
        )
        try await DNSSDQueue.perform(operation)
        return DNSSDRegistration(operation: operation)
    }

    /// The service as advertised now, with its current name.
    public var service: DNSSDService { operation.published.withLockedValue { $0.service } }

    /// The name the service is advertised under now.
    public var name: String { service.name }

    /// The name asked for; `nil` when the daemon chose the computer's name.
    public var requestedName: String? { operation.requestedName }

    /// Whether the service is advertised under another name than the one asked for.
    public var wasRenamed: Bool { requestedName.map { $0 != name } ?? false }

    /// Why the service is not advertised right now, while the registration tries to register it
    /// again (the daemon went away); `nil` while it is advertised.
    public var interruption: DNSSDError? { operation.published.withLockedValue { $0.interruption } }

    /// The port advertised.
    public var port: Int { operation.port }

    /// The TXT record advertised now.
    public var txtRecord: DNSSDTXTRecord { operation.published.withLockedValue { $0.txtRecord } }

    /// Replaces the service's TXT record; browsers that resolve the service see the new one.
    ///
    /// - Throws: ``DNSSDError/Code/invalidTXTRecord`` for a record that cannot be encoded,
    ///   ``DNSSDError/Code/cancelled`` after ``cancel()``, or the daemon's error.
    public func updateTXTRecord(_ txtRecord: DNSSDTXTRecord) async throws {
        try await operation.update(txtRecord)
    }

    /// Withdraws the service: the daemon announces that it is gone. Calling it again does nothing.
    public func cancel() {
        let operation = self.operation
        DNSSDQueue.async { operation.withdraw() }
    }

    public var description: String { "DNSSDRegistration \(service) port \(port)" }

    deinit {
        cancel()
    }
}
