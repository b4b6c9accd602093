//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension DNSSDService {
    /// Finds the service's host, port, TXT record and addresses.
    ///
    /// Resolves the service with `DNSServiceResolve`, then looks up the host name's IPv4 and
    /// IPv6 addresses with `DNSServiceQueryRecord` on the same interface (Avahi's compatibility
    /// layer has no `DNSServiceGetAddrInfo`, and the system resolver finds `.local` names only
    /// when nss-mdns is installed). It returns shortly after the first address arrives, with
    /// every address that came by then.
    ///
    /// - Parameter timeout: How long resolving and the address lookup may take, in seconds; 0
    ///   (or less) for no limit: it then ends when the service resolves, when the daemon gives up
    ///   on it, or when the Swift task is cancelled.
    /// - Throws: ``DNSSDError/Code/serviceNotFound`` when the service does not resolve in time
    ///   (it is no longer advertised); ``DNSSDError/Code/noAddresses`` when its host name gives
    ///   no address in time; ``DNSSDError/Code/cancelled`` when the Swift task is cancelled.
    public func resolve(timeout: TimeInterval = 10) async throws -> DNSSDResolvedService {
        try await DNSSDQueue.perform(ResolveOperation(service: self, timeout: timeout))
    }
}
