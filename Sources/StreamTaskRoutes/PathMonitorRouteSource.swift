//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Network)
import Darwin
import Dispatch
import Network

extension RouteMonitor {
    static let platformSource: (@Sendable (RouteMonitor) throws -> any RouteChangeSource)? = { monitor in
        PathMonitorRouteSource(monitor: monitor)
    }
}

/// The Darwin source: Network.framework's `NWPathMonitor`, which already coalesces changes,
/// on a serial queue of its own. The path's interfaces in preference order stand for the
/// kernel's route choice (the first one is where new connections go); it names no source
/// address, so a better route there means another interface.
final class PathMonitorRouteSource: RouteChangeSource, @unchecked Sendable {
    // @unchecked Sendable: NWPathMonitor is thread-safe; `monitor` is immutable.
    private let monitor: RouteMonitor
    private let pathMonitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "StreamTaskKit.RouteMonitor")

    init(monitor: RouteMonitor) {
        self.monitor = monitor
        pathMonitor.pathUpdateHandler = { [weak self] path in
            guard let self else { return }
            self.monitor.evaluate(using: PathFacts(path: path), from: self, onlyNew: false)
        }
        pathMonitor.start(queue: queue)
    }

    func refresh() {
        queue.async { [weak self] in
            guard let self else { return }
            self.monitor.evaluate(using: PathFacts(path: self.pathMonitor.currentPath), from: self, onlyNew: true)
        }
    }

    func stop() {
        pathMonitor.cancel()
    }
}

/// One path's facts; the addresses come from `getifaddrs`.
struct PathFacts: RouteFactsProvider {
    let path: NWPath

    func interfacesAndAddresses() throws -> (interfaces: [UInt32: Bool], addresses: [RouteAddress: [UInt32]]) {
        var interfaces: [UInt32: Bool] = [:]
        for interface in path.availableInterfaces {
            interfaces[UInt32(interface.index)] = path.status == .satisfied
        }
        var addresses: [RouteAddress: [UInt32]] = [:]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw RouteMonitorError(description: "getifaddrs failed (errno \(errno))") }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor?.pointee {
            cursor = entry.ifa_next
            guard let socketAddress = entry.ifa_addr else { continue }
            let bytes: [UInt8]
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
                }
            default:
                continue
            }
            if let address = RouteAddress(bytes: bytes) {
                addresses[address, default: []].append(if_nametoindex(entry.ifa_name))
            }
        }
        return (interfaces, addresses)
    }

    func choice(to remote: RouteAddress) throws -> RouteChoice? {
        guard path.status == .satisfied, let first = path.availableInterfaces.first else { return nil }
        return RouteChoice(interface: UInt32(first.index), source: nil)
    }
}
#endif
