//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CDNSSD

/// One running browse: the `DNSServiceBrowse` call, its replies, and the stream they feed.
final class BrowseOperation: @unchecked Sendable {
    // @unchecked Sendable: the `var`s are used only on DNSSDQueue.queue.
    private let browser: DNSSDBrowser
    private let continuation: AsyncThrowingStream<DNSSDBrowseEvent, any Error>.Continuation
    private var ref: ServiceRef?
    private var tally = BrowseTally()
    private var stopped = false

    init(browser: DNSSDBrowser, continuation: AsyncThrowingStream<DNSSDBrowseEvent, any Error>.Continuation) {
        self.browser = browser
        self.continuation = continuation
    }

    private var doing: String { "browsing for \(browser.type)" }

    func start() {
        guard !stopped else { return }
        do {
            try DNSSDService.validate(type: browser.type)
            ref = try ServiceRef.start(
                doing: doing,
                context: self,
                onFailure: { [continuation] error in continuation.finish(throwing: error) }
            ) { ref, context in
                DNSServiceBrowse(
                    ref, 0, browser.interface.index, browser.type, browser.domain ?? "", browseReply, context)
            }
        } catch {
            continuation.finish(throwing: error)
        }
    }

    /// The iteration ended: stop browsing.
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
            continuation.finish(throwing: DNSSDError.daemon(error, while: doing))
            stop()
            return
        }
        let event = flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 ? tally.add(service) : tally.remove(service)
        if let event { continuation.yield(event) }
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
