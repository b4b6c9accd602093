//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CDNSSD
import Foundation
import NIOConcurrencyHelpers

/// One registration's dealings with the daemon: `DNSServiceRegister`, renaming after a
/// conflict, TXT record updates, registering again after the daemon went away, and withdrawal.
final class RegisterOperation: DaemonRequest, @unchecked Sendable {
    // @unchecked Sendable: the `var`s are used only on DNSSDQueue.queue; what other threads
    // read is in `published`, behind its lock.

    /// How many other names to try after a conflict before giving up.
    static let renameAttempts = 50

    /// How long to wait before the first attempt to register again after the daemon went
    /// away, and the longest wait between attempts (each failed one doubles it).
    static let firstRetryDelay = 0.5
    static let longestRetryDelay = 10.0

    struct Published {
        var service: DNSSDService
        var txtRecord: DNSSDTXTRecord
        /// Why the service is not advertised now, while the operation tries again.
        var interruption: DNSSDError?
    }

    let requestedName: String?
    let type: String
    let domain: String?
    let port: Int
    let interface: DNSSDInterface
    let renameOnConflict: Bool
    let published: NIOLockedValueBox<Published>

    private var completion: (@Sendable (Result<Void, any Error>) -> Void)?
    private var ref: ServiceRef?
    private var attemptName: String?
    private var renames = 0
    private var established = false
    private var withdrawn = false
    private var retryDelay = RegisterOperation.firstRetryDelay
    private var retryPending = false

    init(
        name: String?, type: String, domain: String?, port: Int, txtRecord: DNSSDTXTRecord,
        interface: DNSSDInterface, renameOnConflict: Bool
    ) {
        self.requestedName = name
        self.type = type
        self.domain = domain
        self.port = port
        self.interface = interface
        self.renameOnConflict = renameOnConflict
        self.published = NIOLockedValueBox(
            Published(
                service: DNSSDService(name: name ?? "", type: type, domain: domain ?? "local.", interface: interface),
                txtRecord: txtRecord
            ))
    }

    private func doing(_ name: String?) -> String {
        "registering \(name.map { "\"\($0)\"" } ?? "the default name") as \(type) on port \(port)"
    }

    func start(_ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        guard !withdrawn else {
            // Cancelled before it started: answered here, and not kept where a later call
            // could answer it again.
            completion(.failure(DNSSDError.cancelled(doing(requestedName))))
            return
        }
        self.completion = completion
        do throws(DNSSDError) {
            try DNSSDService.validate(type: type)
            if let requestedName { try DNSSDService.validate(name: requestedName) }
            guard (1...65535).contains(port) else {
                throw DNSSDError.invalidArgument("the port \(port) is out of range: it must be 1 to 65535")
            }
            let txt = try published.withLockedValue { $0.txtRecord }.wireFormat()
            try attempt(name: requestedName, txt: txt)
        } catch {
            fail(error)
        }
    }

    /// Registers under `name`, trying the next alternative at once when the daemon says the
    /// name is taken.
    private func attempt(name: String?, txt: Data) throws(DNSSDError) {
        var name = name
        while true {
            attemptName = name
            do {
                ref = try ServiceRef.start(doing: doing(name), context: self, onFailure: failedOrLost) { ref, context in
                    txt.withUnsafeBytes { bytes in
                        DNSServiceRegister(
                            ref, 0, interface.index, name, type, domain, nil, UInt16(port).bigEndian,
                            UInt16(bytes.count), bytes.baseAddress, registerReply, context)
                    }
                }
                return
            } catch  where error.code == .nameConflict {
                guard let next = nextName(after: name) else { throw error }
                name = next
            }
        }
    }

    /// The next name to try after `name` conflicted, if renaming is allowed and left.
    private func nextName(after name: String?) -> String? {
        guard renameOnConflict, let name, renames < Self.renameAttempts else { return nil }
        renames += 1
        return AlternativeName.after(name)
    }

    fileprivate func replied(error: DNSServiceErrorType, name: String?, domain: String?) {
        guard !withdrawn else { return }
        if error == DNSServiceErrorType(kDNSServiceErr_NoError) {
            let service = DNSSDService(
                name: name ?? attemptName ?? "", type: type, domain: domain ?? self.domain ?? "local.",
                interface: interface)
            published.withLockedValue {
                $0.service = service
                $0.interruption = nil
            }
            retryDelay = Self.firstRetryDelay
            if !established {
                established = true
                finish(.success(()))
            }
            return
        }
        let advertised = established && published.withLockedValue { $0.interruption == nil }
        if advertised {
            // A conflict while advertised is the daemon's to settle (it renames the service
            // itself); any other error means the service is no longer advertised.
            if error != DNSServiceErrorType(kDNSServiceErr_NameConflict) {
                lose(DNSSDError.daemon(error, while: doing(attemptName)))
            }
            return
        }
        // Registering, the first time or again after the daemon went away: a taken name moves
        // on to the next one, as it does at once in `attempt`.
        ref?.cancel()
        ref = nil
        let failure = DNSSDError.daemon(error, while: doing(attemptName))
        do throws(DNSSDError) {
            guard failure.code == .nameConflict, let next = nextName(after: attemptName) else { throw failure }
            let txt = try published.withLockedValue { $0.txtRecord }.wireFormat()
            try attempt(name: next, txt: txt)
        } catch {
            failedOrLost(error)
        }
    }

    func update(_ txtRecord: DNSSDTXTRecord) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            update(txtRecord) { continuation.resume(with: $0) }
        }
    }

    /// Replaces the TXT record; `completion` gets the outcome, on the queue. Any thread.
    func update(_ txtRecord: DNSSDTXTRecord, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        DNSSDQueue.async {
            completion(Result { try self.updateOnQueue(txtRecord) })
        }
    }

    private func updateOnQueue(_ txtRecord: DNSSDTXTRecord) throws(DNSSDError) {
        let txt = try txtRecord.wireFormat()
        guard !withdrawn else {
            throw DNSSDError.cancelled("the registration of \(type) on port \(port)")
        }
        guard let ref else {
            // Lost with the daemon: registering again publishes the new record.
            published.withLockedValue { $0.txtRecord = txtRecord }
            return
        }
        let status = try ref.withRef { ref in
            txt.withUnsafeBytes { bytes in
                DNSServiceUpdateRecord(ref, nil, 0, UInt16(bytes.count), bytes.baseAddress, 0)
            }
        }
        guard status == DNSServiceErrorType(kDNSServiceErr_NoError) else {
            throw DNSSDError.daemon(
                status, while: "updating the TXT record of \(published.withLockedValue { $0.service })")
        }
        published.withLockedValue { $0.txtRecord = txtRecord }
    }

    /// Stops advertising: deallocating the reference withdraws the service.
    func withdraw() {
        withdrawn = true
        ref?.cancel()
        ref = nil
        finish(.failure(DNSSDError.cancelled(doing(attemptName))))
    }

    func cancel() {
        guard !established else { return }
        withdraw()
    }

    /// Registering failed, or the connection to the daemon did: before the service was
    /// registered, the registration fails; after, the service is lost until it registers again.
    private func failedOrLost(_ error: DNSSDError) {
        if established { lose(error) } else { fail(error) }
    }

    /// The daemon stopped advertising the service (it went away, say): tell the owner, and
    /// register again, under the same name, until that works or the owner withdraws.
    private func lose(_ error: DNSSDError) {
        guard !withdrawn else { return }
        ref?.cancel()
        ref = nil
        published.withLockedValue { $0.interruption = error }
        retryLater()
    }

    /// Schedules one attempt to register again; a loss reported twice (by the reply and by
    /// the connection) still makes one.
    private func retryLater() {
        guard !retryPending else { return }
        retryPending = true
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
        DNSSDQueue.queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.retryPending = false
            self?.registerAgain()
        }
    }

    private func registerAgain() {
        guard !withdrawn, ref == nil else { return }
        do throws(DNSSDError) {
            let (name, txtRecord) = published.withLockedValue { ($0.service.name, $0.txtRecord) }
            try attempt(name: name, txt: try txtRecord.wireFormat())
        } catch {
            lose(error)
        }
    }

    private func fail(_ error: DNSSDError) {
        ref?.cancel()
        ref = nil
        withdrawn = true
        finish(.failure(error))
    }

    /// Answers the caller of ``start(_:)``, once.
    private func finish(_ result: Result<Void, any Error>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}

private let registerReply: DNSServiceRegisterReply = { _, _, error, name, _, domain, context in
    guard let context else { return }
    let operation = Unmanaged<RegisterOperation>.fromOpaque(context).takeUnretainedValue()
    operation.replied(error: error, name: name.map { String(cString: $0) }, domain: domain.map { String(cString: $0) })
}
