//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if os(Linux)
import Foundation
import Glibc
import NIOConcurrencyHelpers
import NIOCore

extension RouteMonitor {
    static let platformSource: (@Sendable (RouteMonitor) throws -> any RouteChangeSource)? = { monitor in
        try NetlinkRouteSource(monitor: monitor)
    }
}

/// The Linux source: one NETLINK_ROUTE socket subscribed to link, address and route changes,
/// and one for the monitor's own requests, both read by one dedicated thread.
///
/// A burst of messages (a link going down removes its addresses and routes, one message each)
/// is coalesced: the thread waits until no message has come for ``quietPeriod`` (but no longer
/// than ``longestDelay`` after the first), then evaluates once.
final class NetlinkRouteSource: RouteChangeSource, @unchecked Sendable {
    // @unchecked Sendable: the descriptors are set once in `init`; `control` is behind a lock
    // and the descriptors are closed under it; everything else is touched by the thread only.
    static let quietPeriod = TimeAmount.milliseconds(75)
    static let longestDelay = TimeAmount.milliseconds(500)

    private struct Control {
        var stopped = false
        var closed = false
        var refreshRequested = false
    }

    private let monitor: RouteMonitor
    private let events: Int32
    private let queries: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let control = NIOLockedValueBox(Control())
    private var sequence: UInt32 = 0

    init(monitor: RouteMonitor) throws {
        self.monitor = monitor
        var descriptors: [Int32] = []
        func fail(_ what: String) -> RouteMonitorError {
            let error = RouteMonitorError(description: "\(what): \(String(cString: strerror(errno))) (errno \(errno))")
            for descriptor in descriptors { close(descriptor) }
            return error
        }
        let events = try Self.openSocket(groups: Netlink.watchedGroups)
        descriptors.append(events)
        let queries: Int32
        do {
            queries = try Self.openSocket(groups: 0)
        } catch {
            close(events)
            throw error
        }
        descriptors.append(queries)
        // The kernel waits for nothing: requests get their answer at once, or we give up.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(queries, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Room for a large burst before the kernel drops messages (ENOBUFS, handled anyway).
        var bufferSize: Int32 = 1 << 20
        _ = setsockopt(events, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw fail("pipe") }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.events = events
        self.queries = queries
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        let thread = Thread { [self] in self.run() }
        thread.name = "StreamTaskKit.RouteMonitor"
        thread.start()
    }

    private static func openSocket(groups: UInt32) throws -> Int32 {
        let descriptor = socket(
            Netlink.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Netlink.protocolRoute)
        guard descriptor >= 0 else {
            throw RouteMonitorError(description: "socket(AF_NETLINK): \(String(cString: strerror(errno)))")
        }
        // struct sockaddr_nl (linux/netlink.h): family, padding, port ID (0: the kernel picks), groups.
        var address = (UInt16(Netlink.addressFamily), UInt16(0), UInt32(0), groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, 12) }
        }
        guard bound == 0 else {
            let error = RouteMonitorError(description: "bind(AF_NETLINK): \(String(cString: strerror(errno)))")
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Whether the thread has ended and closed the sockets (after ``stop()``).
    var isClosed: Bool { control.withLockedValue { $0.closed } }

    func refresh() {
        control.withLockedValue { control in
            guard !control.closed else { return }
            control.refreshRequested = true
            wake()
        }
    }

    func stop() {
        control.withLockedValue { control in
            guard !control.closed else { return }
            control.stopped = true
            wake()
        }
    }

    /// Called under the lock, while the descriptors are open.
    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // a full pipe already means "wake up"
    }

    // MARK: The thread

    private func run() {
        var firstChange: NIODeadline?
        var evaluateAt: NIODeadline?
        while true {
            var timeout: Int32 = -1
            if let evaluateAt {
                let nanoseconds = (evaluateAt - .now()).nanoseconds
                timeout = Int32(clamping: max(0, (nanoseconds + 999_999) / 1_000_000))
            }
            var descriptors = [
                pollfd(fd: events, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0, errno != EINTR { break }
            if ready > 0, descriptors[1].revents != 0 {
                drainWakePipe()
                let (stopped, refresh) = control.withLockedValue { control in
                    defer { control.refreshRequested = false }
                    return (control.stopped, control.refreshRequested)
                }
                if stopped { break }
                if refresh { monitor.evaluate(using: self, from: self, onlyNew: true) }
            }
            if ready > 0, descriptors[0].revents != 0, drainEvents() {
                let now = NIODeadline.now()
                let first = firstChange ?? now
                firstChange = first
                evaluateAt = min(now + Self.quietPeriod, first + Self.longestDelay)
            }
            if let due = evaluateAt, due <= .now() {
                firstChange = nil
                evaluateAt = nil
                monitor.evaluate(using: self, from: self, onlyNew: false)
            }
        }
        control.withLockedValue { control in
            control.closed = true
            for descriptor in [events, queries, wakeRead, wakeWrite] { close(descriptor) }
        }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    /// Reads every pending notification; true if any may matter (or some were lost).
    private func drainEvents() -> Bool {
        var changed = false
        while true {
            guard let datagram = receive(from: events, flags: Int32(MSG_DONTWAIT)) else {
                // EAGAIN: drained. ENOBUFS: the kernel dropped some: re-evaluate to be safe.
                if errno == ENOBUFS { changed = true; continue }
                return changed
            }
            guard let messages = try? NetlinkMessage.decode(datagram) else {
                changed = true  // unreadable: re-evaluate rather than miss a change
                continue
            }
            for envelope in messages {
                switch envelope.message {
                case .route, .address, .link: changed = true
                case .done, .error, .other: break
                }
            }
        }
    }

    private func receive(from descriptor: Int32, flags: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, flags) }
        guard count >= 0 else { return nil }
        return Array(buffer[0..<min(count, buffer.count)])
    }

    // MARK: Requests (on the thread only)

    /// Sends `request` (its sequence number is `sequence`) and gathers the answer: the messages
    /// up to NLMSG_DONE for a dump, the one reply otherwise. An NLMSG_ERROR is thrown.
    private func ask(_ makeRequest: (UInt32) -> [UInt8], dump: Bool) throws -> [NetlinkMessage] {
        sequence &+= 1
        let sequence = self.sequence
        let request = makeRequest(sequence)
        let sent = request.withUnsafeBytes { send(queries, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { throw NetlinkRequestError(code: errno) }
        var answer: [NetlinkMessage] = []
        while true {
            guard let datagram = receive(from: queries, flags: 0) else { throw NetlinkRequestError(code: errno) }
            for envelope in try NetlinkMessage.decode(datagram) where envelope.sequence == sequence {
                switch envelope.message {
                case .done:
                    return answer
                case .error(let code):
                    if code == 0 { return answer }
                    throw NetlinkRequestError(code: -code)
                default:
                    answer.append(envelope.message)
                    if !dump { return answer }
                }
            }
        }
    }
}

/// A request the kernel refused (or did not answer): `code` is the errno.
struct NetlinkRequestError: Error {
    var code: Int32
}

extension NetlinkRouteSource: RouteFactsProvider {
    func interfacesAndAddresses() throws -> (interfaces: [UInt32: Bool], addresses: [RouteAddress: [UInt32]]) {
        var interfaces: [UInt32: Bool] = [:]
        for case .link(let link, deleted: false) in try ask(NetlinkRequest.links, dump: true) {
            interfaces[link.interfaceIndex] = link.isUp
        }
        var addresses: [RouteAddress: [UInt32]] = [:]
        for case .address(let address, deleted: false) in try ask(NetlinkRequest.addresses, dump: true) {
            if let value = address.address { addresses[value, default: []].append(address.interfaceIndex) }
        }
        return (interfaces, addresses)
    }

    func choice(to remote: RouteAddress) throws -> RouteChoice? {
        do {
            for case .route(let route, deleted: false) in try ask(
                { NetlinkRequest.route(to: remote, sequence: $0) }, dump: false)
            {
                guard let interface = route.outputInterface else { return nil }
                return RouteChoice(interface: interface, source: route.preferredSource)
            }
            return nil
        } catch let error as NetlinkRequestError where [ENETUNREACH, EHOSTUNREACH].contains(error.code) {
            return nil  // no route at all: nothing better to offer
        }
    }
}
#endif
