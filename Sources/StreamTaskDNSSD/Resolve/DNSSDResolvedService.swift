//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// What resolving a ``DNSSDService`` found: where it runs and what its TXT record says.
public struct DNSSDResolvedService: Sendable, Hashable, CustomStringConvertible {
    /// The service that was resolved, with the interface it answered on.
    public let service: DNSSDService
    /// The host the service runs on, for example `"printer.local."`.
    public let hostName: String
    /// The service's TCP or UDP port.
    public let port: Int
    /// The service's TXT record.
    public let txtRecord: DNSSDTXTRecord
    /// The host's IPv4 and IPv6 addresses, each with ``port``; IPv6 link-local addresses carry
    /// the interface as their scope. Those that answered first come first.
    public let addresses: [SocketAddress]

    public var description: String {
        "\(service) at \(hostName):\(port) \(addresses.map { $0.hostLiteral }) \(txtRecord)"
    }
}

extension SocketAddress {
    /// The address as text a connect call accepts: `192.0.2.1`, `2001:db8::1`, or for a scoped
    /// (link-local) IPv6 address `fe80::1%eth0`.
    var hostLiteral: String {
        let text = ipAddress ?? description
        if case .v6(let v6) = self, v6.address.sin6_scope_id != 0 {
            return text + "%" + (DNSSDInterface(index: v6.address.sin6_scope_id).name ?? "\(v6.address.sin6_scope_id)")
        }
        return text
    }
}
