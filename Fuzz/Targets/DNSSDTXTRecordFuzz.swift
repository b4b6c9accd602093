//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `DNSSDTXTRecord(wireFormat:)` on any bytes (what the daemon hands over from the network):
// it never traps, keeps each key once, and what it can write back reads back the same.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNSSDTXTRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let record = DNSSDTXTRecord(wireFormat: Data(bytes: data, count: size))
    let folded = record.keys.map { $0.lowercased() }
    require(Set(folded).count == folded.count, "a key appears twice: \(record.keys)")
    require(record.keys.allSatisfy { !$0.isEmpty }, "an empty key was kept")
    for key in record.keys {
        require(record[key] != nil, "the key \(key.debugDescription) does not look itself up")
    }
    _ = record.description
    _ = record.dictionary

    guard let wire = try? record.wireFormat() else { return 0 }
    let again = DNSSDTXTRecord(wireFormat: wire)
    require(again == record, "round trip changed \(record) into \(again)")
    require(again.keys == record.keys, "round trip reordered \(record.keys) into \(again.keys)")
    require((try? again.wireFormat()) == wire, "writing again changed the bytes")
    return 0
}
