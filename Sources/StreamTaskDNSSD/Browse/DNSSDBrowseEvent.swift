//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A change seen while browsing: a service appeared or went away.
public enum DNSSDBrowseEvent: Sendable, Hashable {
    /// The service is advertised (on ``DNSSDService/interface``).
    case added(DNSSDService)
    /// The service is no longer advertised there: it was withdrawn, or its host left.
    case removed(DNSSDService)

    /// The service the event is about.
    public var service: DNSSDService {
        switch self {
        case .added(let service), .removed(let service): return service
        }
    }
}
