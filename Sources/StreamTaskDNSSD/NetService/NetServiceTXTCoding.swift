//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// `NetService`'s TXT record conversions, as plain functions of their own so that the fuzz
/// target `netservice-txt` compiles them without the rest of the module.
enum NetServiceTXTCoding {
    /// See `NetService.dictionary(fromTXTRecord:)`.
    static func dictionary(fromTXTRecord txtData: Data) -> [String: Data] {
        guard isWellFormed(txtData) else { return [:] }
        var dictionary: [String: Data] = [:]
        for (key, value) in DNSSDTXTRecord(wireFormat: txtData).entries where dictionary[key] == nil {
            dictionary[key] = value.data ?? Data()
        }
        return dictionary
    }

    /// See `NetService.data(fromTXTRecord:)`.
    static func data(fromTXTRecord txtDictionary: [String: Data]) -> Data {
        var record = DNSSDTXTRecord()
        for key in txtDictionary.keys.sorted() {
            record[key] = .data(txtDictionary[key]!)
        }
        guard !record.isEmpty, record.entries.count == txtDictionary.count,
            let data = try? record.wireFormat()
        else { return Data() }
        return data
    }

    /// Whether each length byte of `data` ends within it: what Apple's `TXTRecordGetCount`
    /// requires before it reads any entry.
    static func isWellFormed(_ data: Data) -> Bool {
        var offset = data.startIndex
        while offset < data.endIndex {
            offset += 1 + Int(data[offset])
        }
        return offset == data.endIndex
    }
}
