//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import StreamTaskDNSSD

/// A chat server found on the LAN: the DNS-SD service, where it runs, and what its TXT record
/// says about STARTTLS and the certificate.
public struct DiscoveredChatServer: Sendable, Hashable {
    /// The resolved service.
    public let resolved: DNSSDResolvedService
    /// The TXT record read as Protocol.md's section 9 says; `nil` when it is not a version-1
    /// record (any IRC server advertised as `_irc._tcp`).
    public let record: ChatServiceRecord?

    /// The service name.
    public var name: String { resolved.service.name }

    /// One line for a list: name, host and port, and whether it offers STARTTLS with which
    /// certificate (its fingerprint in the form chat-server prints).
    public var summary: String {
        let tls =
            record.map { record in
                guard record.offersSTARTTLS else { return "no TLS" }
                return record.certificateSHA256.map { "STARTTLS, certificate \(ChatServiceRecord.fingerprint($0))" }
                    ?? "STARTTLS"
            } ?? "unknown TLS"
        return "\(name) at \(resolved.hostName):\(resolved.port) (\(tls))"
    }
}

/// Finds chat servers (`_irc._tcp`) through DNS-SD.
public enum ChatServerDiscovery {
    /// Browses for `duration` seconds and resolves what was found, in the order found.
    /// Services that go away while browsing, or do not resolve, are left out.
    public static func find(
        for duration: TimeInterval, resolveTimeout: TimeInterval = 5
    ) async throws -> [DiscoveredChatServer] {
        let browser = DNSSDBrowser(type: ChatServiceRecord.serviceType)
        let services = try await withThrowingTaskGroup(of: [DNSSDService]?.self) { group in
            group.addTask {
                var found: [DNSSDService] = []
                for try await event in browser {
                    switch event {
                    case .added(let service)
                    where !found.contains(where: { $0.name == service.name && $0.domain == service.domain }):
                        found.append(service)
                    case .removed(let service):
                        found.removeAll {
                            $0.name == service.name && $0.domain == service.domain && $0.interface == service.interface
                        }
                    default: break
                    }
                    if Task.isCancelled { break }
                }
                return found
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(duration))
                return nil
            }
            // The timer ends first; cancelling the browse then returns what it saw.
            var result: [DNSSDService] = []
            while let next = try await group.next() {
                if let found = next {
                    result = found
                    break
                }
                group.cancelAll()
            }
            return result
        }
        var servers: [DiscoveredChatServer] = []
        for service in services {
            guard let resolved = try? await service.resolve(timeout: resolveTimeout) else { continue }
            let strings = resolved.txtRecord.dictionary.compactMapValues { $0.string ?? "" }
            servers.append(DiscoveredChatServer(resolved: resolved, record: ChatServiceRecord(txtRecord: strings)))
        }
        return servers
    }
}
