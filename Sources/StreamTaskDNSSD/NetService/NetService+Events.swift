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

/// What a `NetService`'s operations report, on their way to its run loop. An `id` names the
/// publish, resolve or monitor it comes from (`nil`: a refusal that depends on no operation).
enum NetServiceEvent: Sendable {
    case willPublish
    case published(id: Int, DNSSDService)
    case notPublished(id: Int?, NetService.ErrorCode)
    /// The listener of a `.listenForConnections` publish is bound.
    case listening(id: Int, StreamListener, renameOnConflict: Bool)
    /// It accepted a connection, handed over as streams.
    case accepted(id: Int, AcceptedStreams)
    case willResolve
    case resolved(id: Int, DNSSDResolvedService)
    case notResolved(id: Int?, NetService.ErrorCode)
    case resolveTimeElapsed(id: Int)
    case stopped
    case txtRecordUpdated(id: Int, Data)
}

extension NetService {
    func handle(_ events: [NetServiceEvent]) {
        guard !delegateMuted else { return }
        for event in events { handle(event) }
    }

    /// Updates the service from one event and tells the delegate; a stale operation's event
    /// (the service was stopped, or started something else, since) is dropped.
    private func handle(_ event: NetServiceEvent) {
        switch event {
        case .willPublish:
            delegate?.netServiceWillPublish(self)
        case .published(let id, let service):
            guard case .publishing(id, let operation) = activity else { return }
            activity = .published(id: id, operation)
            storedName = service.name
            storedDomain = service.domain
            delegate?.netServiceDidPublish(self)
        case .notPublished(let id, let code):
            if let id {
                switch activity {
                case .listening(id), .publishing(id, _): break
                default: return
                }
                activity = .idle
                stopListening()
            }
            delegate?.netService(self, didNotPublish: Self.errorDictionary(code))
        case .listening(let id, let listener, let renameOnConflict):
            guard case .listening(id) = activity else {
                // Stopped while it bound.
                Task { await listener.shutdown(gracePeriod: nil) }
                return
            }
            self.listener = listener
            listenedPort = listener.port
            register(id: id, port: listener.port ?? 0, renameOnConflict: renameOnConflict)
        case .accepted(let id, let streams):
            // Streams of a publish that was stopped meanwhile are released: their connection closes.
            guard activity.id == id else { return }
            delegate?.netService(self, didAcceptConnectionWith: streams.input, outputStream: streams.output)
        case .willResolve:
            delegate?.netServiceWillResolve(self)
        case .resolved(let id, let resolved):
            guard case .resolving(id, let operation, false) = activity else { return }
            activity = .resolving(id: id, operation, resolved: true)
            hostName = resolved.hostName
            resolvedPort = resolved.port
            addresses = resolved.addresses.map(\.socketAddressData)
            // The record as parsed, written again: the same bytes for any well-formed record.
            txtData = try? resolved.txtRecord.wireFormat()
            delegate?.netServiceDidResolveAddress(self)
        case .notResolved(let id, let code):
            if let id {
                guard case .resolving(id, _, false) = activity else { return }
                activity = .idle
            }
            delegate?.netService(self, didNotResolve: Self.errorDictionary(code))
        case .resolveTimeElapsed(let id):
            guard case .resolving(id, _, true) = activity else { return }
            activity = .idle
            delegate?.netServiceDidStop(self)
        case .stopped:
            delegate?.netServiceDidStop(self)
        case .txtRecordUpdated(let id, let data):
            guard monitor?.id == id else { return }
            txtData = data
            delegate?.netService(self, didUpdateTXTRecord: data)
        }
    }
}

extension SocketAddress {
    /// The address as Darwin's `NetService.addresses` holds it: the bytes of a `sockaddr_in`
    /// or `sockaddr_in6`.
    var socketAddressData: Data {
        withSockAddr { address, length in Data(bytes: address, count: length) }
    }
}
#endif
