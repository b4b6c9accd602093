//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskDNSSD

/// The TXT record model and its wire format, as plain values (no daemon).
@Suite struct DNSSDTXTRecordTests {
    @Test func binaryEmptyAndKeyOnlyValuesSurviveTheWireFormat() throws {
        var record: DNSSDTXTRecord = ["path": "/chat", "empty": .data(Data()), "flag": .keyOnly]
        record["bin"] = .data(Data([0x00, 0xFF, 0x3D, 0x0A]))
        let wire = try record.wireFormat()
        var expected = Data([10] + Array("path=/chat".utf8))
        expected += [6] + Array("empty=".utf8)
        expected += [4] + Array("flag".utf8)
        expected += [8] + Array("bin=".utf8) + [0x00, 0xFF, 0x3D, 0x0A]
        #expect(wire == expected)
        let parsed = DNSSDTXTRecord(wireFormat: wire)
        #expect(parsed == record)
        #expect(parsed.keys == ["path", "empty", "flag", "bin"])
        #expect(parsed["empty"] == .data(Data()))
        #expect(parsed["flag"] == .keyOnly)
        #expect(parsed["flag"]?.data == nil)
        #expect(parsed["bin"]?.data == Data([0x00, 0xFF, 0x3D, 0x0A]))
        #expect(parsed["bin"]?.string == nil, "not UTF-8")
        #expect(parsed["missing"] == nil)
    }

    @Test func anEmptyRecordIsOneEmptyString() throws {
        #expect(try DNSSDTXTRecord().wireFormat() == Data([0]))
        #expect(DNSSDTXTRecord(wireFormat: Data([0])).isEmpty)
        #expect(DNSSDTXTRecord(wireFormat: Data()).isEmpty)
    }

    @Test func keysIgnoreCaseAndTheFirstDuplicateWins() {
        let wire = Data([3]) + Data("A=1".utf8) + Data([3]) + Data("a=2".utf8)
        let record = DNSSDTXTRecord(wireFormat: wire)
        #expect(record.keys == ["A"])
        #expect(record["a"]?.string == "1")
        #expect(record == ["a": "1"])
        var changed = record
        changed["a"] = nil
        #expect(changed.isEmpty)
    }

    @Test func malformedWireDataIsReadLeniently() {
        // An empty string, a string starting with "=", then a length running past the end.
        let wire = Data([0, 2]) + Data("=x".utf8) + Data([3]) + Data("k=v".utf8) + Data([9]) + Data("short".utf8)
        let record = DNSSDTXTRecord(wireFormat: wire)
        #expect(record == ["k": "v"])
    }

    @Test func valuesMayHoldEqualsSigns() {
        let record = DNSSDTXTRecord(wireFormat: Data([7]) + Data("eq==a=b".utf8))
        #expect(record["eq"]?.string == "=a=b")
    }

    @Test(arguments: ["", "a=b", "tab\tkey", "ключ"])
    func invalidKeysAreRejected(key: String) {
        var record = DNSSDTXTRecord()
        record[key] = "v"
        #expect(throws: DNSSDError.self) { try record.wireFormat() }
        do {
            _ = try record.wireFormat()
        } catch {
            #expect(error.code == .invalidTXTRecord)
        }
    }

    @Test func anEntryOver255BytesIsRejected() throws {
        var record = DNSSDTXTRecord()
        record["k"] = .data(Data(repeating: 1, count: 253))  // "k=" + 253 = 255: fits
        #expect(try record.wireFormat().count == 256)
        record["k"] = .data(Data(repeating: 1, count: 254))
        #expect(throws: DNSSDError.self) { try record.wireFormat() }
    }

    @Test func aDictionaryOfStringsMakesARecordInKeyOrder() {
        let record = DNSSDTXTRecord(["b": "2", "a": "1"])
        #expect(record.keys == ["a", "b"])
        #expect(record.dictionary == ["a": "1", "b": "2"])
        #expect(record.description == "[a=1, b=2]")
    }
}
