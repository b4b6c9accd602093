//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Turns the daemon's raw adds and removes into one ``DNSSDBrowseEvent/added(_:)`` per service
/// and one ``DNSSDBrowseEvent/removed(_:)`` when its last sighting is gone.
///
/// Avahi reports a service once per interface and IP protocol, so with IPv4 and IPv6 both on,
/// the same service on the same interface arrives twice; a remove for a service never added
/// (the browse started as it left) is dropped.
struct BrowseTally {
    private var sightings: [DNSSDService: Int] = [:]

    /// The daemon reported `service`; returns the event to pass on, if any.
    mutating func add(_ service: DNSSDService) -> DNSSDBrowseEvent? {
        sightings[service, default: 0] += 1
        return sightings[service] == 1 ? .added(service) : nil
    }

    /// The daemon reported `service` gone; returns the event to pass on, if any.
    mutating func remove(_ service: DNSSDService) -> DNSSDBrowseEvent? {
        guard let count = sightings[service] else { return nil }
        if count > 1 {
            sightings[service] = count - 1
            return nil
        }
        sightings[service] = nil
        return .removed(service)
    }
}
