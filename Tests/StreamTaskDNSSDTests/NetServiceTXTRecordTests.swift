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
import Testing

@testable import StreamTaskDNSSD

/// `NetService`'s TXT record conversions and error values, as plain values (no daemon).
@Suite struct NetServiceTXTRecordTests {
    /// A TXT record's wire format from its strings.
    private func wire(_ strings: [UInt8]...) -> Data {
        Data(strings.flatMap { [UInt8($0.count)] + $0 })
    }

    @Test func aDictionaryRoundTripsThroughTheWireFormatInKeyOrder() {
        let dictionary = ["path": Data("/chat".utf8), "bin": Data([0x00, 0xFF, 0x3D]), "empty": Data()]
        let data = NetService.data(fromTXTRecord: dictionary)
        #expect(data == wire(Array("bin=".utf8) + [0x00, 0xFF, 0x3D], Array("empty=".utf8), Array("path=/chat".utf8)))
        #expect(NetService.dictionary(fromTXTRecord: data) == dictionary)
    }

    @Test func aKeyWithoutEqualsMapsToEmptyData() {
        let data = wire(Array("flag".utf8), Array("k=v".utf8))
        #expect(NetService.dictionary(fromTXTRecord: data) == ["flag": Data(), "k": Data("v".utf8)])
    }

    @Test func theFirstOfDuplicateKeysWinsIgnoringCase() {
        let data = wire(Array("Key=1".utf8), Array("key=2".utf8), Array("KEY".utf8))
        #expect(NetService.dictionary(fromTXTRecord: data) == ["Key": Data("1".utf8)])
    }

    @Test func emptyStringsAndEntriesWithoutAKeyAreSkipped() {
        let data = wire([], Array("=value".utf8), Array("a=b".utf8))
        #expect(NetService.dictionary(fromTXTRecord: data) == ["a": Data("b".utf8)])
    }

    @Test func dataThatIsNotATXTRecordGivesAnEmptyDictionary() {
        #expect(NetService.dictionary(fromTXTRecord: Data()).isEmpty)
        #expect(NetService.dictionary(fromTXTRecord: Data([0])).isEmpty)
        // A well-formed entry, then a length byte that runs past the end: rejected whole.
        let overrun = wire(Array("a=b".utf8)) + Data([9]) + Data("short".utf8)
        #expect(NetService.dictionary(fromTXTRecord: overrun).isEmpty)
        #expect(NetService.dictionary(fromTXTRecord: Data([0xFF])).isEmpty)
        // Keys that are not UTF-8 are read, not trapped on.
        #expect(NetService.dictionary(fromTXTRecord: wire([0xC3, 0x28, 0x3D, 0x01])).count == 1)
    }

    @Test func aDictionaryThatCannotBeATXTRecordGivesEmptyData() {
        #expect(NetService.data(fromTXTRecord: [:]).isEmpty)
        #expect(NetService.data(fromTXTRecord: ["": Data("x".utf8)]).isEmpty, "empty key")
        #expect(NetService.data(fromTXTRecord: ["a=b": Data()]).isEmpty, "= in a key")
        #expect(NetService.data(fromTXTRecord: ["caf\u{E9}": Data()]).isEmpty, "not ASCII")
        #expect(NetService.data(fromTXTRecord: ["k": Data(count: 254)]).isEmpty, "an entry over 255 bytes")
        #expect(NetService.data(fromTXTRecord: ["k": Data(count: 253)]).count == 256, "exactly 255 fits")
        #expect(NetService.data(fromTXTRecord: ["A": Data(), "a": Data()]).isEmpty, "keys equal but for case")
    }

    @Test func setTXTRecordRefusesMalformedDataAndKeepsTheRecord() {
        let service = NetService(domain: "", type: "_test._tcp.", name: "TXT")
        #expect(service.txtRecordData() == nil)
        let good = NetService.data(fromTXTRecord: ["a": Data("1".utf8)])
        #expect(service.setTXTRecord(good))
        #expect(!service.setTXTRecord(Data([5, 0x61])), "a length past the end")
        #expect(service.txtRecordData() == good)
        #expect(service.setTXTRecord(nil))
        #expect(service.txtRecordData() == nil)
    }

    @Test func errorsHaveFoundationsValuesAndKeys() {
        #expect(NetService.errorCode == "NSNetServicesErrorCode")
        #expect(NetService.errorDomain == "NSNetServicesErrorDomain")
        let codes: [NetService.ErrorCode] = [
            .unknownError, .collisionError, .notFoundError, .activityInProgress, .badArgumentError,
            .cancelledError, .invalidError, .timeoutError, .missingRequiredConfigurationError,
        ]
        #expect(codes.map(\.rawValue) == Array(stride(from: -72000, through: -72008, by: -1)))
        let dictionary = NetService.errorDictionary(.collisionError)
        #expect(dictionary[NetService.errorCode]?.intValue == -72001)
        #expect(dictionary[NetService.errorDomain]?.intValue == 10)
        #expect(NetService.ErrorCode(DNSSDError(.nameConflict, "taken")) == .collisionError)
        #expect(NetService.ErrorCode(DNSSDError(.invalidArgument, "bad")) == .badArgumentError)
        #expect(NetService.ErrorCode(DNSSDError(.daemonError, "?")) == .unknownError)
        #expect(NetService.Options.noAutoRename.rawValue == 1)
        #expect(NetService.Options.listenForConnections.rawValue == 2)
    }

    @Test func aServiceToResolveKnowsNothingYetAndComparesByNameTypeAndDomain() {
        let service = NetService(domain: "local.", type: "_test._tcp.", name: "Printer")
        #expect(service.port == -1)
        #expect(service.hostName == nil)
        #expect(service.addresses == nil)
        #expect(service.name == "Printer" && service.type == "_test._tcp." && service.domain == "local.")
        let same = NetService(domain: "local.", type: "_test._tcp.", name: "Printer")
        #expect(service == same && service.hash == same.hash)
        #expect(service != NetService(domain: "local.", type: "_test._tcp.", name: "Scanner"))
        #expect(NetService(domain: "", type: "_test._tcp.", name: "P", port: 80).port == 80)
    }
}
#endif
