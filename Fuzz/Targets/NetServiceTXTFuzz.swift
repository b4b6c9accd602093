//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `NetService.dictionary(fromTXTRecord:)` on any bytes (a TXT record as a resolve or a monitor
// hands it over): it never traps, and a malformed record gives an empty dictionary; what it
// gives, and a dictionary built from the input's bytes (keys and values of any bytes), either
// encodes with `data(fromTXTRecord:)` to data that reads back equal, or is refused with empty data.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetServiceTXT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let steer = input.byte()
    let bytes = Data(input.rest)

    // As received: the record's bytes.
    let dictionary = NetServiceTXTCoding.dictionary(fromTXTRecord: bytes)
    if !NetServiceTXTCoding.isWellFormed(bytes) {
        require(dictionary.isEmpty, "a malformed record gave \(dictionary)")
    }
    roundTrip(dictionary)

    // As a program builds one: cut the bytes into keys and values at the steering byte's choice.
    var built: [String: Data] = [:]
    var rest = bytes[...]
    let keyLength = Int(steer % 8) + 1
    while !rest.isEmpty {
        let key = String(decoding: rest.prefix(keyLength), as: UTF8.self)
        rest = rest.dropFirst(keyLength)
        let valueLength = Int(rest.first ?? 0) % 64
        rest = rest.dropFirst()
        built[key] = Data(rest.prefix(valueLength))
        rest = rest.dropFirst(valueLength)
    }
    roundTrip(built)
    return 0
}

/// What `data(fromTXTRecord:)` encodes reads back as the same dictionary, and encodes again to
/// the same bytes; what it refuses gives empty data.
private func roundTrip(_ dictionary: [String: Data]) {
    let encoded = NetServiceTXTCoding.data(fromTXTRecord: dictionary)
    guard !encoded.isEmpty else { return }
    require(NetServiceTXTCoding.isWellFormed(encoded), "encoded \(dictionary) as a malformed record")
    let decoded = NetServiceTXTCoding.dictionary(fromTXTRecord: encoded)
    require(decoded == dictionary, "round trip changed \(dictionary) into \(decoded)")
    require(NetServiceTXTCoding.data(fromTXTRecord: decoded) == encoded, "encoding again changed the bytes")
}
