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
import Foundation
import NIOCore

/// Resolves one service: `DNSServiceResolve` for host, port and TXT record, then
/// `DNSServiceQueryRecord` for the host's A and AAAA records.
final class ResolveOperation: DaemonRequest, @unchecked Sendable {
    // @unchecked Sendable: the `var`s are used only on DNSSDQueue.queue.

    /// How long to go on collecting addresses after the first one arrives: the other family's
    /// answer usually follows within milliseconds, and mDNS gives no "that is all" signal.
    static let addressCollectionWindow: TimeInterval = 0.1

    private let service: DNSSDService
    private let timeout: TimeInterval
    private var completion: (@Sendable (Result<DNSSDResolvedService, any Error>) -> Void)?
    private var finished = false
    private var resolveRef: ServiceRef?
    private var addressRefs: [ServiceRef] = []
    private var timers: [DispatchWorkItem] = []

    // What resolving found so far.
    private var interface: DNSSDInterface
    private var hostName: String?
    private var port = 0
    private var txtRecord = DNSSDTXTRecord()
    private var addresses: [SocketAddress] = []
    private var familiesAnswered: Set<UInt16> = []

    init(service: DNSSDService, timeout: TimeInterval) {
        self.service = service
        self.timeout = timeout
        self.interface = service.interface
    }

    func start(_ completion: @escaping @Sendable (Result<DNSSDResolvedService, any Error>) -> Void) {
        guard !finished else {
            // Cancelled before it started: answered here, and not kept where a later call
            // could answer it again.
            completion(.failure(DNSSDError.cancelled("resolving \(service)")))
            return
        }
        self.completion = completion
        do {
            resolveRef = try ServiceRef.start(doing: "resolving \(service)", context: self, onFailure: fail) {
                ref, context in
                DNSServiceResolve(
                    ref, 0, service.interface.index, service.name, service.type, service.domain, resolveReply, context)
            }
        } catch {
            fail(error)
            return
        }
        // A timeout of 0 (or less) is none, as for Apple's resolve(withTimeout:).
        guard timeout > 0 else { return }
        schedule(after: timeout) { operation in
            if operation.hostName == nil {
                operation.fail(
                    DNSSDError(
                        .serviceNotFound,
                        "\(operation.service) did not resolve within \(operation.timeout) s: it is not advertised any more, or its host does not answer"
                    ))
            } else {
                operation.fail(operation.noAddresses)
            }
        }
    }

    func cancel() {
        fail(DNSSDError.cancelled("resolving \(service)"))
    }

    private var noAddresses: DNSSDError {
        DNSSDError(
            .noAddresses,
            "\(service) resolved to \(hostName ?? "?") port \(port), but that host name gave no IPv4 or IPv6 address within \(timeout) s"
        )
    }

    // MARK: Replies

    fileprivate func resolved(
        interface index: UInt32, error: DNSServiceErrorType, host: String?, port: UInt16, txt: Data
    ) {
        guard !finished, hostName == nil else { return }
        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let host else {
            var failure = DNSSDError.daemon(error, while: "resolving \(service)")
            if failure.code == .daemonError {
                // Avahi's resolver gives up with an unspecific error when nothing answers.
                failure = DNSSDError(
                    .serviceNotFound, "\(service) did not resolve: it is not advertised any more",
                    daemonErrorCode: error)
            }
            fail(failure)
            return
        }
        resolveRef?.cancel()
        resolveRef = nil
        if index != 0 { interface = DNSSDInterface(index: index) }
        hostName = host
        self.port = Int(UInt16(bigEndian: port))
        txtRecord = DNSSDTXTRecord(wireFormat: txt)
        queryAddresses(of: host)
    }

    private func queryAddresses(of host: String) {
        for recordType in [ResolveOperation.typeA, ResolveOperation.typeAAAA] {
            do {
                let ref = try ServiceRef.start(
                    doing: "looking up the addresses of \(host)", context: self, onFailure: fail
                ) {
                    ref, context in
                    DNSServiceQueryRecord(
                        ref, 0, interface.index, host, recordType, ResolveOperation.classIN, queryReply, context)
                }
                addressRefs.append(ref)
            } catch {
                fail(error)
                return
            }
        }
    }

    fileprivate func answered(
        flags: DNSServiceFlags, interface index: UInt32, error: DNSServiceErrorType, type: UInt16, data: Data
    ) {
        guard !finished, error == DNSServiceErrorType(kDNSServiceErr_NoError),
            flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0,
            let address = Self.socketAddress(type: type, data: data, port: port, interface: index)
        else { return }
        if !addresses.contains(address) { addresses.append(address) }
        let firstAnswer = familiesAnswered.isEmpty
        familiesAnswered.insert(type)
        if familiesAnswered.count == 2 {
            succeed()
        } else if firstAnswer {
            schedule(after: Self.addressCollectionWindow) { $0.succeed() }
        }
    }

    /// An A or AAAA record's data as a socket address with `port`.
    static func socketAddress(type: UInt16, data: Data, port: Int, interface: UInt32) -> SocketAddress? {
        switch (type, data.count) {
        case (typeA, 4):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: data) }
            return SocketAddress(address, host: "")
        case (typeAAAA, 16):
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: data) }
            // A link-local address (fe80::/10) means something only on the interface it came from.
            if data[data.startIndex] == 0xFE, data[data.startIndex + 1] & 0xC0 == 0x80 {
                address.sin6_scope_id = interface
            }
            return SocketAddress(address, host: "")
        default:
            return nil
        }
    }

    // MARK: Finishing

    private func succeed() {
        guard !finished, let hostName else { return }
        let resolved = DNSSDResolvedService(
            service: DNSSDService(name: service.name, type: service.type, domain: service.domain, interface: interface),
            hostName: hostName,
            port: port,
            txtRecord: txtRecord,
            addresses: addresses
        )
        finish(.success(resolved))
    }

    private func fail(_ error: DNSSDError) {
        finish(.failure(error))
    }

    private func finish(_ result: Result<DNSSDResolvedService, DNSSDError>) {
        guard !finished else { return }
        finished = true
        resolveRef?.cancel()
        resolveRef = nil
        addressRefs.forEach { $0.cancel() }
        addressRefs = []
        timers.forEach { $0.cancel() }
        timers = []
        let completion = self.completion
        self.completion = nil
        completion?(result.mapError { $0 as any Error })
    }

    private func schedule(after seconds: TimeInterval, _ body: @escaping @Sendable (ResolveOperation) -> Void) {
        let item = DispatchWorkItem { [weak self] in
            guard let self, !self.finished else { return }
            body(self)
        }
        timers.append(item)
        DNSSDQueue.queue.asyncAfter(deadline: .now() + seconds, execute: item)
    }

    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28
    static let classIN: UInt16 = 1
}

private let resolveReply: DNSServiceResolveReply = { _, _, interface, error, _, host, port, txtLength, txt, context in
    guard let context else { return }
    let operation = Unmanaged<ResolveOperation>.fromOpaque(context).takeUnretainedValue()
    let txtData = txt.map { Data(bytes: $0, count: Int(txtLength)) } ?? Data()
    operation.resolved(
        interface: interface, error: error, host: host.map { String(cString: $0) }, port: port, txt: txtData)
}

private let queryReply: DNSServiceQueryRecordReply = {
    _, flags, interface, error, _, type, _, length, data, _, context in
    guard let context else { return }
    let operation = Unmanaged<ResolveOperation>.fromOpaque(context).takeUnretainedValue()
    let bytes = data.map { Data(bytes: $0, count: Int(length)) } ?? Data()
    operation.answered(flags: flags, interface: interface, error: error, type: type, data: bytes)
}
