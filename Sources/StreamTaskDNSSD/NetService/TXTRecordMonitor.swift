//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
internal import CDNSSD
import Foundation

/// Watches one service's TXT record with `DNSServiceQueryRecord`, for
/// `NetService.startMonitoring()`: each record the daemon reports goes to `onRecord`.
final class TXTRecordMonitor: @unchecked Sendable {
    // @unchecked Sendable: the `var`s are used only on DNSSDQueue.queue.
    private let service: DNSSDService
    private let onRecord: @Sendable (Data) -> Void
    private var ref: ServiceRef?
    private var stopped = false

    init(service: DNSSDService, onRecord: @escaping @Sendable (Data) -> Void) {
        self.service = service
        self.onRecord = onRecord
    }

    /// Starts the query; a failure leaves nothing to report (Foundation's monitor has no error
    /// callback), so the monitor stays silent.
    func start() {
        guard !stopped else { return }
        // kDNSServiceMaxDomainName: the longest full name, escaped, with its terminating zero.
        var fullName = [CChar](repeating: 0, count: 1009)
        guard DNSServiceConstructFullName(&fullName, service.name, service.type, service.domain) == 0 else { return }
        let name = String(decoding: fullName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        ref = try? ServiceRef.start(
            doing: "monitoring the TXT record of \(service)", context: self, onFailure: { _ in }
        ) { ref, context in
            DNSServiceQueryRecord(
                ref, 0, service.interface.index, name, Self.typeTXT, ResolveOperation.classIN, txtReply, context)
        }
    }

    func stop() {
        stopped = true
        ref?.cancel()
        ref = nil
    }

    fileprivate func answered(flags: DNSServiceFlags, error: DNSServiceErrorType, data: Data) {
        guard !stopped, error == DNSServiceErrorType(kDNSServiceErr_NoError),
            flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0
        else { return }
        onRecord(data)
    }

    static let typeTXT: UInt16 = 16
}

private let txtReply: DNSServiceQueryRecordReply = { _, flags, _, error, _, _, _, length, data, _, context in
    guard let context else { return }
    let monitor = Unmanaged<TXTRecordMonitor>.fromOpaque(context).takeUnretainedValue()
    monitor.answered(flags: flags, error: error, data: data.map { Data(bytes: $0, count: Int(length)) } ?? Data())
}
#endif
