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

extension NetService {
    /// A TXT record's entries as a dictionary, as Foundation's method gives them.
    ///
    /// Never traps, whatever the bytes. A key without `=` maps to empty data (on Darwin it maps
    /// to `NSNull`, which a `[String: Data]` cannot hold); a key that appears twice (ignoring
    /// case) keeps its first value; an entry that starts with `=` has no key and is skipped.
    /// Data that is not a TXT record (a length byte that runs past the end) gives an empty
    /// dictionary, as on Darwin, whose parser rejects such a record whole; so does empty data.
    ///
    /// - Parameter txtData: A TXT record in wire format (length-prefixed `key=value` strings).
    public class func dictionary(fromTXTRecord txtData: Data) -> [String: Data] {
        NetServiceTXTCoding.dictionary(fromTXTRecord: txtData)
    }

    /// A TXT record in wire format from a dictionary, its keys in sorted order, each value
    /// written as `key=value` (an empty value as `key=`).
    ///
    /// Where Foundation fails an assertion, this returns empty data: for a key that is empty,
    /// holds `=` or anything but printable ASCII, or equals another key but for case; for an
    /// entry over 255 bytes or a record over 65535. An empty dictionary gives empty data too.
    public class func data(fromTXTRecord txtDictionary: [String: Data]) -> Data {
        NetServiceTXTCoding.data(fromTXTRecord: txtDictionary)
    }

    /// Sets the TXT record to publish, or, while published, replaces the published one.
    ///
    /// - Parameter recordData: A TXT record in wire format (see `data(fromTXTRecord:)`), or
    ///   `nil` for none.
    /// - Returns: `false`, changing nothing, when `recordData` is not a TXT record that can be
    ///   published (a length byte past the end, or a key that is not printable ASCII).
    @discardableResult
    public func setTXTRecord(_ recordData: Data?) -> Bool {
        let record = recordData.map { DNSSDTXTRecord(wireFormat: $0) } ?? DNSSDTXTRecord()
        if let recordData {
            guard NetServiceTXTCoding.isWellFormed(recordData), (try? record.wireFormat()) != nil else { return false }
        }
        txtData = recordData
        switch activity {
        case .publishing(_, let operation), .published(_, let operation):
            operation.update(record) { _ in }
        case .idle, .listening, .resolving:
            break
        }
        return true
    }

    /// The TXT record: the one set with `setTXTRecord(_:)`, or the one resolving or
    /// monitoring found; `nil` when there is none.
    public func txtRecordData() -> Data? {
        txtData
    }

    /// Starts watching the service's TXT record: `netService(_:didUpdateTXTRecord:)` reports it
    /// when first seen and whenever it changes, until `stopMonitoring()`. Needs no resolve.
    public func startMonitoring() {
        guard monitor == nil else { return }
        let id = nextID()
        let mailbox = self.mailbox
        let service = DNSSDService(
            name: name, type: storedType, domain: storedDomain.isEmpty ? "local." : storedDomain, interface: interface)
        let operation = TXTRecordMonitor(service: service) { data in
            mailbox.post(.txtRecordUpdated(id: id, data))
        }
        monitor = (id, operation)
        DNSSDQueue.async { operation.start() }
    }

    /// Stops watching the TXT record.
    public func stopMonitoring() {
        guard let operation = monitor?.1 else { return }
        monitor = nil
        DNSSDQueue.async { operation.stop() }
    }
}
#endif
