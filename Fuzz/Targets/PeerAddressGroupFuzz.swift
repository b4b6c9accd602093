//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `PeerAddressGroup(ipAddress:)` on any text: it never traps; what it accepts is what
// inet_pton accepts; its description reads back as the same group; and two addresses share a
// group exactly when they are the same IPv4 address or share their first 64 bits.

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPeerAddressGroup(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let cut = Int(input.byte())
    let bytes = input.rest
    guard !bytes.contains(0) else { return 0 }  // C strings end at NUL; the kernel's never hold one
    let text = String(decoding: bytes, as: UTF8.self)
    let split = min(cut, text.utf8.count)
    let first = String(decoding: Array(text.utf8.prefix(split)), as: UTF8.self)
    let second = String(decoding: Array(text.utf8.dropFirst(split)), as: UTF8.self)
    for address in [text, first, second] {
        let group = PeerAddressGroup(ipAddress: address)
        require(
            (group != nil) == (networkBytes(address) != nil),
            "\(address.debugDescription): accepted \(group != nil), inet_pton disagrees")
        guard let group else { continue }
        let description = group.description
        let readBack = description.hasSuffix("::/64") ? String(description.dropLast(3)) : description
        require(
            PeerAddressGroup(ipAddress: readBack) == group,
            "\(description) does not read back as the group of \(address)")
    }
    if let a = networkBytes(first), let b = networkBytes(second) {
        require(
            (PeerAddressGroup(ipAddress: first) == PeerAddressGroup(ipAddress: second))
                == (groupBytes(a) == groupBytes(b)),
            "\(first.debugDescription) and \(second.debugDescription) grouped wrongly")
    }
    return 0
}

/// 4 or 16 bytes, as inet_pton reads the address.
private func networkBytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}

/// What should decide the group: the IPv4 address (mapped ones included), or 64 bits.
private func groupBytes(_ bytes: [UInt8]) -> [UInt8] {
    if bytes.count == 4 { return [4] + bytes }
    if bytes.prefix(12) == (Array(repeating: 0, count: 10) + [0xff, 0xff])[...] { return [4] + bytes.suffix(4) }
    return [6] + bytes.prefix(8)
}
