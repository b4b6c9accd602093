//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation
import StreamTaskCore

/// Foundation's `NetServiceBrowser` for Linux: finds DNS-SD (Bonjour) services of a type, and
/// reports them as `NetService` objects to resolve, with Foundation's API and behaviour.
///
/// ```swift
/// let browser = NetServiceBrowser()
/// browser.delegate = delegate      // a NetServiceBrowserDelegate, held weakly
/// browser.searchForServices(ofType: "_chat._tcp.", inDomain: "local.")
/// RunLoop.current.run()            // netServiceBrowser(_:didFind:moreComing:) arrives here
/// ```
///
/// On Darwin this type is not compiled and the system's is used. Like Foundation's, the browser
/// belongs to a run loop (the current one when it is created, in the default mode, unless
/// `schedule(in:forMode:)` says otherwise): delegate methods are called there, only while it
/// runs; reports that come meanwhile wait, in order. It is not `Sendable`. A browser that is
/// released stops searching. It runs on the same browse operation as `DNSSDBrowser`.
open class NetServiceBrowser: NSObject {
    enum Event: Sendable {
        case willSearch
        case found(id: Int, DNSSDService)
        case removed(id: Int, DNSSDService)
        case foundDomain(id: Int, String)
        case notSearched(id: Int?, NetService.ErrorCode)
        case stopped
    }

    private let mailbox: RunLoopMailbox<Event>
    /// The search under way, if any: its id, and its browse (`nil` for a domain search).
    /// While there is one, the browser's run loops keep running with no result due, as the
    /// run-loop source of Darwin's browser keeps them.
    private var search: (id: Int, operation: BrowseOperation?)? {
        didSet { mailbox.keepRunLoopsRunning(search != nil) }
    }
    private var lastID = 0
    /// Avahi reports a service once per interface; the delegate hears of it once.
    private var tally = BrowseTally()
    /// The object `didFind` reported for each service, to report again in `didRemove`.
    private var services: [DNSSDService: NetService] = [:]

    /// The delegate, held weakly.
    open weak var delegate: (any NetServiceBrowserDelegate)?

    /// Whether to browse over peer-to-peer links too. Kept for source compatibility; Avahi has
    /// no peer-to-peer links, so it changes nothing on Linux.
    open var includesPeerToPeer = false

    /// A browser scheduled in the current run loop's default mode.
    public override init() {
        mailbox = RunLoopMailbox(runLoop: .current)
        super.init()
        mailbox.deliver(to: self) { $0.handle($1) }
    }

    /// Adds a run loop mode in which the delegate is called.
    open func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.schedule(in: aRunLoop, forMode: mode)
    }

    /// Removes a run loop mode from those in which the delegate is called.
    open func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.remove(from: aRunLoop, forMode: mode)
    }

    /// Searches for services of `type` in `domainString`: `netServiceBrowserWillSearch(_:)`,
    /// then `netServiceBrowser(_:didFind:moreComing:)` for each service advertised now and
    /// later, and `netServiceBrowser(_:didRemove:moreComing:)` as they go, until `stop()`.
    ///
    /// - Parameters:
    ///   - type: The service type, `_name._tcp.` or `_name._udp.`; another shape reports
    ///     `netServiceBrowser(_:didNotSearch:)` with `.badArgumentError`.
    ///   - domainString: The domain; `""` or `"local."` for multicast DNS.
    open func searchForServices(ofType type: String, inDomain domainString: String) {
        guard let id = beginSearch() else { return }
        let mailbox = self.mailbox
        let operation = BrowseOperation(
            type: DNSSDService.normalizedType(type),
            domain: domainString.isEmpty ? nil : DNSSDService.normalizedDomain(domainString),
            interface: .any,
            onEvent: { event in
                switch event {
                case .added(let service): mailbox.post(.found(id: id, service))
                case .removed(let service): mailbox.post(.removed(id: id, service))
                }
            },
            onFailure: { error in mailbox.post(.notSearched(id: id, NetService.ErrorCode(error))) }
        )
        search?.operation = operation
        DNSSDQueue.async { operation.start() }
    }

    /// Searches for domains to browse in: reports `local.`, the one domain Avahi browses by
    /// default, with `netServiceBrowser(_:didFindDomain:moreComing:)`.
    open func searchForBrowsableDomains() {
        searchForLocalDomain()
    }

    /// Searches for domains to publish in: reports `local.`, as `searchForBrowsableDomains()`.
    open func searchForRegistrationDomains() {
        searchForLocalDomain()
    }

    private func searchForLocalDomain() {
        guard let id = beginSearch() else { return }
        mailbox.post(.foundDomain(id: id, "local."))
    }

    /// Starts a search unless one is under way (that reports `.activityInProgress`); its id.
    private func beginSearch() -> Int? {
        guard search == nil else {
            mailbox.post(.notSearched(id: nil, .activityInProgress))
            return nil
        }
        lastID += 1
        search = (lastID, nil)
        mailbox.post(.willSearch)
        return lastID
    }

    /// Stops the search, then calls `netServiceBrowserDidStopSearch(_:)`. Does nothing when no
    /// search is under way. The services found stay as they are (a resolve goes on).
    open func stop() {
        guard endSearch() else { return }
        mailbox.post(.stopped)
    }

    @discardableResult
    private func endSearch() -> Bool {
        guard let search else { return false }
        if let operation = search.operation {
            DNSSDQueue.async { operation.stop() }
        }
        self.search = nil
        tally = BrowseTally()
        services = [:]
        return true
    }

    deinit {
        endSearch()
    }
}

extension NetServiceBrowser {
    func handle(_ events: [Event]) {
        for (index, event) in events.enumerated() {
            // "More coming": another report of this search is already waiting behind this one.
            let moreComing = events[(index + 1)...].contains { later in
                switch later {
                case .found(let id, _), .removed(let id, _), .foundDomain(let id, _): return id == search?.id
                case .willSearch, .notSearched, .stopped: return false
                }
            }
            handle(event, moreComing: moreComing)
        }
    }

    private func handle(_ event: Event, moreComing: Bool) {
        switch event {
        case .willSearch:
            delegate?.netServiceBrowserWillSearch(self)
        case .found(let id, let service):
            let key = DNSSDService(name: service.name, type: service.type, domain: service.domain)
            guard id == search?.id, case .added = tally.add(key) else { return }
            let found = NetService(domain: service.domain, type: service.type + ".", name: service.name)
            services[key] = found
            delegate?.netServiceBrowser(self, didFind: found, moreComing: moreComing)
        case .removed(let id, let service):
            let key = DNSSDService(name: service.name, type: service.type, domain: service.domain)
            guard id == search?.id, case .removed = tally.remove(key) else { return }
            let gone =
                services.removeValue(forKey: key)
                ?? NetService(domain: service.domain, type: service.type + ".", name: service.name)
            delegate?.netServiceBrowser(self, didRemove: gone, moreComing: moreComing)
        case .foundDomain(let id, let domain):
            guard id == search?.id else { return }
            delegate?.netServiceBrowser(self, didFindDomain: domain, moreComing: moreComing)
        case .notSearched(let id, let code):
            if let id {
                guard id == search?.id else { return }
                endSearch()
            }
            delegate?.netServiceBrowser(self, didNotSearch: NetService.errorDictionary(code))
        case .stopped:
            delegate?.netServiceBrowserDidStopSearch(self)
        }
    }
}

/// A `NetServiceBrowser` belongs to one run loop, as on Darwin, where it is not `Sendable` either.
@available(*, unavailable)
extension NetServiceBrowser: @unchecked Sendable {}
#endif
