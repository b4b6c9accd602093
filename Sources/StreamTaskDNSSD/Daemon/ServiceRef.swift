//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CDNSSD
import Dispatch

/// Owns one `DNSServiceRef`: watches the socket the daemon answers on with a dispatch source,
/// calls `DNSServiceProcessResult` when it is readable (which runs the operation's C callback),
/// and deallocates the reference in `deinit`, which ends the operation (a registration is
/// withdrawn).
///
/// The event handler keeps the owner, and the callbacks' context object, alive until
/// ``cancel()``; the reference is deallocated only after the source has stopped watching its
/// socket, which the deallocation closes.
final class ServiceRef: @unchecked Sendable {
    // @unchecked Sendable: `ref` and `source` are used only on DNSSDQueue.queue (every method
    // below runs there), and `deinit` runs after the source's last handler has been released.
    private let ref: DNSServiceRef
    private var source: (any DispatchSourceRead)?

    private init(_ ref: DNSServiceRef) {
        self.ref = ref
    }

    /// Starts an operation and watches it.
    ///
    /// - Parameters:
    ///   - doing: What the operation does, for error messages ("browsing _http._tcp").
    ///   - context: The object the C callback finds through its context pointer; kept alive
    ///     until ``cancel()``.
    ///   - onFailure: Called (on the queue) if the connection to the daemon fails later; the
    ///     reference has already stopped by then.
    ///   - call: Calls the `DNSService…` function with the reference to fill in and the context.
    /// - Throws: The daemon's error when the call fails.
    static func start(
        doing: String,
        context: AnyObject,
        onFailure: @escaping @Sendable (DNSSDError) -> Void,
        _ call: (UnsafeMutablePointer<DNSServiceRef?>, UnsafeMutableRawPointer) -> DNSServiceErrorType
    ) throws(DNSSDError) -> ServiceRef {
        dispatchPrecondition(condition: .onQueue(DNSSDQueue.queue))
        var ref: DNSServiceRef?
        let status = call(&ref, Unmanaged.passUnretained(context).toOpaque())
        guard status == DNSServiceErrorType(kDNSServiceErr_NoError), let ref else {
            throw DNSSDError.daemon(status, while: doing)
        }
        let owner = ServiceRef(ref)
        let source = DispatchSource.makeReadSource(fileDescriptor: DNSServiceRefSockFD(ref), queue: DNSSDQueue.queue)
        let keptAlive = ContextBox(context)
        source.setEventHandler {
            withExtendedLifetime(keptAlive) {
                let status = owner.processResult()
                if status != DNSServiceErrorType(kDNSServiceErr_NoError) {
                    owner.cancel()
                    onFailure(DNSSDError.daemon(status, while: doing))
                }
            }
        }
        // The owner, and with it the reference, outlives the source.
        source.setCancelHandler { withExtendedLifetime(owner) {} }
        owner.source = source
        source.resume()
        return owner
    }

    private func processResult() -> DNSServiceErrorType {
        DNSServiceProcessResult(ref)
    }

    /// The underlying reference, for calls on a running operation (updating a TXT record).
    func withRef<T>(_ body: (DNSServiceRef) throws(DNSSDError) -> T) throws(DNSSDError) -> T {
        dispatchPrecondition(condition: .onQueue(DNSSDQueue.queue))
        return try body(ref)
    }

    /// Stops watching the socket; the reference is deallocated once nothing holds the owner.
    /// Calling it again does nothing.
    func cancel() {
        dispatchPrecondition(condition: .onQueue(DNSSDQueue.queue))
        source?.cancel()
        source = nil
    }

    deinit {
        DNSServiceRefDeallocate(ref)
    }
}

/// Carries the callbacks' context object into the `@Sendable` event handler, which runs on the
/// same queue as every other use of that object.
private struct ContextBox: @unchecked Sendable {
    // @unchecked Sendable: the object is only used on DNSSDQueue.queue.
    let object: AnyObject
    init(_ object: AnyObject) { self.object = object }
}
