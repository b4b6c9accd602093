//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Browses for services of one type: an `AsyncSequence` of services as they appear and go away.
///
/// ```swift
/// for try await event in DNSSDBrowser(type: "_chat._tcp") {
///     switch event {
///     case .added(let service): print("found", service.name, "on", service.interface)
///     case .removed(let service): print("lost", service.name)
///     }
/// }
/// ```
///
/// Each iteration is a browse of its own: it starts when the iteration does, reports every
/// service already advertised as ``DNSSDBrowseEvent/added(_:)``, then changes as they happen,
/// and stops when the iteration ends (the loop is left, or its Swift task is cancelled). The
/// sequence never finishes by itself; it throws a ``DNSSDError`` when the daemon cannot be
/// reached or fails.
public struct DNSSDBrowser: AsyncSequence, Sendable {
    public typealias Element = DNSSDBrowseEvent

    /// The service type browsed for, for example `"_http._tcp"`.
    public let type: String
    /// The domain browsed in; `nil` for the daemon's default (`local.`).
    public let domain: String?
    /// The interface browsed on.
    public let interface: DNSSDInterface

    /// A browser for services of `type`.
    ///
    /// - Parameters:
    ///   - type: The service type, `_name._tcp` or `_name._udp`.
    ///   - domain: The domain; `nil` for the default (`local.`, multicast DNS).
    ///   - interface: Where to browse; every interface by default.
    public init(type: String, domain: String? = nil, interface: DNSSDInterface = .any) {
        self.type = DNSSDService.normalizedType(type)
        self.domain = domain.map(DNSSDService.normalizedDomain)
        self.interface = interface
    }

    /// Starts a browse of its own; it stops when the iterator is released or its Swift task is
    /// cancelled.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DNSSDBrowseEvent.self)
        let operation = BrowseOperation(
            type: type, domain: domain, interface: interface,
            onEvent: { continuation.yield($0) },
            onFailure: { continuation.finish(throwing: $0) }
        )
        continuation.onTermination = { _ in DNSSDQueue.async { operation.stop() } }
        DNSSDQueue.async { operation.start() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Delivers one browse's events.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<DNSSDBrowseEvent, any Error>.Iterator

        /// The next change; waits until there is one. The browse never ends by itself: this
        /// throws ``DNSSDError`` when the daemon cannot be reached or fails, and otherwise
        /// returns `nil` only after its Swift task was cancelled.
        public mutating func next() async throws -> DNSSDBrowseEvent? {
            try await base.next()
        }
    }
}
