//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `ChatServiceRecord(txtRecord:)` on any TXT record, reached as the chat client reaches it:
// wire bytes, then `DNSSDTXTRecord`, then text values. It never traps, and what it reads it
// writes back the same way.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChatServiceRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let txt = DNSSDTXTRecord(wireFormat: Data(bytes: data, count: size))
    // As ChatServerDiscovery does it.
    let strings = txt.dictionary.compactMapValues { $0.string ?? "" }
    guard let record = ChatServiceRecord(txtRecord: strings) else { return 0 }
    if let digest = record.certificateSHA256 {
        require(digest.count == 32, "a fingerprint of \(digest.count) bytes")
        require(
            ChatServiceRecord.parseFingerprint(ChatServiceRecord.fingerprint(digest)) == digest,
            "fingerprint round trip")
    }
    // Written and read again it is the same record; a fingerprint is only written with STARTTLS.
    var expected = record
    if !record.offersSTARTTLS { expected.certificateSHA256 = nil }
    require(ChatServiceRecord(txtRecord: record.txtRecord) == expected, "round trip changed \(record)")
    // And through the TXT wire format, as the server advertises it, when it fits.
    if let wire = try? DNSSDTXTRecord(record.txtRecord).wireFormat() {
        let read = DNSSDTXTRecord(wireFormat: wire).dictionary.compactMapValues { $0.string ?? "" }
        require(ChatServiceRecord(txtRecord: read) == expected, "wire round trip changed \(record)")
    }
    return 0
}
