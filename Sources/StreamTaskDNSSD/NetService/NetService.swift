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
import NIOCore
import StreamTaskCore

/// Foundation's `NetService` for Linux: a DNS-SD (Bonjour) service to publish or to resolve,
/// with Foundation's API and behaviour, on this module's DNS-SD operations.
///
/// swift-corelibs-foundation has no `NetService`, so Darwin code that uses it does not build
/// on Linux; with `import StreamTaskDNSSD` it does. On Darwin this type is not compiled and the
/// system's `NetService` is used.
///
/// ```swift
/// let service = NetService(domain: "", type: "_chat._tcp.", name: "Team Chat", port: 7007)
/// service.delegate = delegate      // a NetServiceDelegate, held weakly
/// service.publish()                // netServiceDidPublish(_:) follows on this run loop
/// RunLoop.current.run()
/// ```
///
/// Like Foundation's, the object belongs to a run loop: the current one when it is created, in
/// the default mode, unless `schedule(in:forMode:)` says otherwise. Delegate methods are called
/// there, and only while that run loop runs in a scheduled mode; results that come while it
/// does not run wait, in order, until it does (the daemon goes on publishing or resolving in the
/// meantime). Use the object on that run loop's thread: it is not `Sendable`. A service that is
/// released stops what it was doing (a published service is withdrawn), without delegate calls.
open class NetService: NSObject {
    /// What the service is doing; `id` tells a current operation's results from a stale one's.
    enum Activity {
        case idle
        /// Publishing with `.listenForConnections`: binding the listener, before registering.
        case listening(id: Int)
        case publishing(id: Int, RegisterOperation)
        case published(id: Int, RegisterOperation)
        case resolving(id: Int, ResolveOperation, resolved: Bool)
    }

    let mailbox: RunLoopMailbox<NetServiceEvent>
    var activity = Activity.idle {
        didSet { keepRunLoopsRunningWhileBusy() }
    }
    var monitor: (id: Int, TXTRecordMonitor)? {
        didSet { keepRunLoopsRunningWhileBusy() }
    }
    var storedName: String
    var storedDomain: String
    let storedType: String
    let publishedPort: Int
    var resolvedPort = -1
    var txtData: Data?
    /// Where a browser saw the service; resolving asks there.
    var interface = DNSSDInterface.any
    /// The listener of a service published with `.listenForConnections`, once bound.
    var listener: StreamListener?
    /// The port that listener got (kept once it stops).
    var listenedPort: Int?
    /// Set by `getInputStream(_:outputStream:)`: the delegate is told nothing more.
    var delegateMuted = false
    private var lastID = 0

    /// The delegate, held weakly.
    open weak var delegate: (any NetServiceDelegate)?

    /// Whether to publish and resolve over peer-to-peer links too. Kept for source
    /// compatibility; Avahi has no peer-to-peer links, so it changes nothing on Linux.
    open var includesPeerToPeer = false

    /// A service to publish.
    ///
    /// - Parameters:
    ///   - domain: The domain; `""` for the default (`local.`).
    ///   - type: The service type, `_name._tcp.` or `_name._udp.` (the trailing dot is optional).
    ///   - name: The instance name; `""` to publish under the computer's name.
    ///   - port: The port the service listens on, 1 to 65535.
    public init(domain: String, type: String, name: String, port: Int32) {
        storedDomain = domain
        storedType = type
        storedName = name
        publishedPort = Int(port)
        mailbox = RunLoopMailbox(runLoop: .current)
        super.init()
        mailbox.deliver(to: self) { $0.handle($1) }
    }

    /// A service to resolve, as `NetServiceBrowser` finds it; resolve it with
    /// `resolve(withTimeout:)`.
    public convenience init(domain: String, type: String, name: String) {
        self.init(domain: domain, type: type, name: name, port: -1)
    }

    /// The instance name: after publishing, the name the service was published under.
    open var name: String {
        if case .published(_, let operation) = activity {
            return operation.published.withLockedValue { $0.service.name }
        }
        return storedName
    }

    /// The service type, as given (a service found by a browser has a trailing dot: `_http._tcp.`).
    open var type: String { storedType }

    /// The domain, as given, or as the daemon reported it (`local.`) once published or found.
    open var domain: String { storedDomain }

    /// The host the service runs on (`host.local.`), once resolved; `nil` before.
    open internal(set) var hostName: String?

    /// The service's addresses once resolved, each a socket address's bytes (`sockaddr_in` or
    /// `sockaddr_in6`, port included), as on Darwin; `nil` before.
    open internal(set) var addresses: [Data]?

    /// The port: the one given for a service to publish (with `.listenForConnections` and 0,
    /// the one the listener got), the resolved one after resolving, or -1 when not known.
    open var port: Int {
        if publishedPort > 0 { return publishedPort }
        return listenedPort ?? resolvedPort
    }

    // MARK: Run loops

    /// Adds a run loop mode in which the delegate is called. The current run loop's default mode
    /// is scheduled from the start.
    open func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.schedule(in: aRunLoop, forMode: mode)
    }

    /// Removes a run loop mode from those in which the delegate is called. With none left, the
    /// results wait until one is scheduled again.
    open func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        mailbox.remove(from: aRunLoop, forMode: mode)
    }

    /// While the service publishes, listens, resolves or monitors, its run loops keep running
    /// with no result due, as the run-loop source of Darwin's service keeps them: a thread may
    /// publish and call `RunLoop.current.run()`. Once it is idle they may run dry again.
    private func keepRunLoopsRunningWhileBusy() {
        let busy: Bool
        if case .idle = activity { busy = monitor != nil } else { busy = true }
        mailbox.keepRunLoopsRunning(busy)
    }

    // MARK: Streams

    /// Makes a pair of Foundation streams to the service, as Darwin's does: returned at once,
    /// unopened; opening either resolves the service and connects to it (over a stream task of
    /// `StreamSession.shared`, as `streamTask(with:)` makes one). Returns `true`;
    /// a service that does not resolve, or cannot be reached, shows as the streams' error
    /// (`errorOccurred`) instead. From then on the service's delegate is told nothing more.
    ///
    /// The streams are the ones `StreamTask.captureStreams()` hands over: schedule them in a
    /// run loop for their events (`openCompleted` once connected), and see the stream handover
    /// article for which threads may read and write them.
    ///
    /// - Parameters:
    ///   - inputStream: Where to put the stream that reads from the service; `nil` for none.
    ///   - outputStream: Where to put the stream that writes to it; `nil` for none.
    @discardableResult
    open func getInputStream(
        _ inputStream: UnsafeMutablePointer<InputStream?>?,
        outputStream: UnsafeMutablePointer<OutputStream?>?
    ) -> Bool {
        delegateMuted = true
        StreamSession.shared.streamTask(with: self).captureFoundationStreamsBeforeResuming(
            into: inputStream, outputStream)
        return true
    }

    // MARK: Publishing

    /// Publishes the service, renaming it if the name is taken: `publish(options: [])`.
    open func publish() {
        publish(options: [])
    }

    /// Publishes the service: `netServiceWillPublish(_:)`, then `netServiceDidPublish(_:)` or
    /// `netService(_:didNotPublish:)`. It stays published until `stop()` or until it is released.
    ///
    /// A taken name becomes `Name (2)`, `Name (3)`, … (or the daemon's own choice) unless
    /// `options` has `.noAutoRename`, which fails with `.collisionError` instead. With
    /// `.listenForConnections`, the service listens first (see `NetService.Options`). A service
    /// created with `init(domain:type:name:)` has no port and fails with `.badArgumentError`.
    open func publish(options: Options) {
        guard case .idle = activity else {
            mailbox.post(.notPublished(id: nil, .activityInProgress))
            return
        }
        mailbox.post(.willPublish)
        let id = nextID()
        if options.contains(.listenForConnections) {
            listen(id: id, renameOnConflict: !options.contains(.noAutoRename))
        } else {
            register(id: id, port: publishedPort, renameOnConflict: !options.contains(.noAutoRename))
        }
    }

    /// Registers the service at `port` with the daemon, as publishing `id`.
    func register(id: Int, port: Int, renameOnConflict: Bool) {
        let operation = RegisterOperation(
            name: storedName.isEmpty ? nil : storedName,
            type: DNSSDService.normalizedType(storedType),
            domain: storedDomain.isEmpty ? nil : DNSSDService.normalizedDomain(storedDomain),
            port: port,
            txtRecord: txtData.map { DNSSDTXTRecord(wireFormat: $0) } ?? DNSSDTXTRecord(),
            interface: .any,
            renameOnConflict: renameOnConflict
        )
        activity = .publishing(id: id, operation)
        let mailbox = self.mailbox
        DNSSDQueue.start(operation) { result in
            switch result {
            case .success:
                mailbox.post(.published(id: id, operation.published.withLockedValue { $0.service }))
            case .failure(let error):
                mailbox.post(.notPublished(id: id, ErrorCode(error as? DNSSDError ?? .cancelled("publishing"))))
            }
        }
    }

    // MARK: Resolving

    /// Resolves the service with a timeout of 5 seconds.
    @available(*, deprecated, message: "Use resolve(withTimeout:) instead.")
    open func resolve() {
        resolve(withTimeout: 5)
    }

    /// Resolves the service: `netServiceWillResolve(_:)`, then `netServiceDidResolveAddress(_:)`
    /// with `addresses`, `hostName`, `port` and `txtRecordData()` set, or, once `timeout` has
    /// passed without an answer, `netService(_:didNotResolve:)` with `.timeoutError`.
    ///
    /// As on Darwin, a resolve that succeeded ends when its timeout does, with
    /// `netServiceDidStop(_:)`; `stop()` ends it sooner. A `timeout` of 0 (or less) is none, as
    /// Apple documents: the resolve goes on until `stop()`, and fails only if the daemon gives
    /// up on the service.
    open func resolve(withTimeout timeout: TimeInterval) {
        guard case .idle = activity else {
            mailbox.post(.notResolved(id: nil, .activityInProgress))
            return
        }
        mailbox.post(.willResolve)
        let id = nextID()
        let service = DNSSDService(
            name: storedName, type: storedType, domain: storedDomain.isEmpty ? "local." : storedDomain,
            interface: interface)
        let operation = ResolveOperation(service: service, timeout: timeout)
        activity = .resolving(id: id, operation, resolved: false)
        let mailbox = self.mailbox
        let deadline: DispatchTime? = timeout > 0 ? DispatchTime.now() + timeout : nil
        DNSSDQueue.start(operation) { result in
            switch result {
            case .success(let resolved):
                mailbox.post(.resolved(id: id, resolved))
            case .failure(let error):
                let code = ErrorCode(error as? DNSSDError ?? .cancelled("resolving"))
                // Like mDNSResponder, report a service that did not answer when the time is up,
                // not when Avahi's resolver gives up.
                guard code == .timeoutError || code == .notFoundError else {
                    mailbox.post(.notResolved(id: id, code))
                    return
                }
                guard let deadline else { return mailbox.post(.notResolved(id: id, code)) }
                DNSSDQueue.queue.asyncAfter(deadline: deadline) { mailbox.post(.notResolved(id: id, .timeoutError)) }
            }
        }
        guard let deadline else { return }
        DNSSDQueue.queue.asyncAfter(deadline: deadline) { mailbox.post(.resolveTimeElapsed(id: id)) }
    }

    // MARK: Stopping

    /// Stops publishing (the service is withdrawn) or resolving, then calls
    /// `netServiceDidStop(_:)`. Does nothing when the service is neither. Monitoring goes on
    /// until `stopMonitoring()`.
    open func stop() {
        guard endActivity() else { return }
        mailbox.post(.stopped)
    }

    /// Ends publishing or resolving; whether there was any to end.
    @discardableResult
    func endActivity() -> Bool {
        stopListening()
        switch activity {
        case .idle:
            return false
        case .listening:
            break
        case .publishing(_, let operation), .published(_, let operation):
            DNSSDQueue.async { operation.withdraw() }
        case .resolving(_, let operation, _):
            DNSSDQueue.async { operation.cancel() }
        }
        activity = .idle
        return true
    }

    func nextID() -> Int {
        lastID += 1
        return lastID
    }

    deinit {
        endActivity()
        stopMonitoring()
    }

    // MARK: Equality

    /// Whether `object` is a service with the same name, type and domain.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NetService else { return false }
        return other === self || (other.name == name && other.type == type && other.domain == domain)
    }

    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(name)
        hasher.combine(type)
        hasher.combine(domain)
        return hasher.finalize()
    }

    open override var description: String {
        "<NetService \(ObjectIdentifier(self))> \(domain) \(type) \(name)" + (port >= 0 ? " \(port)" : "")
    }
}

/// A `NetService` belongs to one run loop, as on Darwin, where it is not `Sendable` either.
@available(*, unavailable)
extension NetService: @unchecked Sendable {}
#endif
