//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CDNSSD

/// One running browse: the `DNSServiceBrowse` call and its replies, passed on as events (a
/// ``DNSSDBrowser``'s stream, or a `NetServiceBrowser`'s run loop).
final class BrowseOperation: @unchecked Sendable {
    // @unchecked Sendable: the `var`s are used only on DNSSDQueue.queue.
    private let type: String
    private let domain: String?
    private let interface: DNSSDInterface
    private let onEvent: @Sendable (DNSSDBrowseEvent) -> Void
    private let onFailure: @Sendable (DNSSDError) -> Void
    private var ref: ServiceRef?
    private var tally = BrowseTally()
    private var stopped = false

    /// A browse for `type` that passes each service appearing or going away to `onEvent` and a
    /// failure, after which it has stopped, to `onFailure`; both are called on the queue.
    init(
        type: String, domain: String?, interface: DNSSDInterface,
        onEvent: @escaping @Sendable (DNSSDBrowseEvent) -> Void,
        onFailure: @escaping @Sendable (DNSSDError) -> Void
    ) {
        self.type = type
        self.domain = domain
        self.interface = interface
        self.onEvent = onEvent
        self.onFailure = onFailure
    }

    private var doing: String { "browsing for \(type)" }

    func start() {
        guard !stopped else { return }
        do {
            try DNSSDService.validate(type: type)
            ref = try ServiceRef.start(doing: doing, context: self, onFailure: onFailure) { ref, context in
                DNSServiceBrowse(ref, 0, interface.index, type, domain ?? "", browseReply, context)
            }
        } catch {
            onFailure(error)
        }
    }

    /// Stops browsing; no event follows.
    func stop() {
        stopped = true
        ref?.cancel()
        ref = nil
    }

    fileprivate func reply(
        flags: DNSServiceFlags, interface: UInt32, error: DNSServiceErrorType, service: DNSSDService?
    ) {
        guard !stopped else { return }
        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let service else {
            stop()
            onFailure(DNSSDError.daemon(error, while: doing))
            return
        }
        let event = flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 ? tally.add(service) : tally.remove(service)
        if let event { onEvent(event) }
    }
}

private let browseReply: DNSServiceBrowseReply = { _, flags, interface, error, name, type, domain, context in
    guard let context else { return }
    let operation = Unmanaged<BrowseOperation>.fromOpaque(context).takeUnretainedValue()
    var service: DNSSDService?
    if let name, let type, let domain {
        service = DNSSDService(
            name: String(cString: name),
            type: String(cString: type),
            domain: String(cString: domain),
            interface: DNSSDInterface(index: interface)
        )
    }
    operation.reply(flags: flags, interface: interface, error: error, service: service)
}
