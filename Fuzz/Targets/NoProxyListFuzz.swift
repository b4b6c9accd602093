//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `NoProxyList` on any `no_proxy` value and host: it never traps, and every entry it keeps
// matches the host it names.
//
// Input: the list, a NUL, then the host (tried on port 443 and on the port in the list's entry).

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNoProxyList(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let text = String(decoding: bytes[..<split], as: UTF8.self)
    let host = split < bytes.count ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : ""
    let list = NoProxyList(text)
    _ = list.matches(host: host, port: 443)

    for entry in list.entries {
        let port = entry.port ?? 443
        switch entry.pattern {
        case .name(let name):
            // A name that reads as an address, keeps a trailing dot or is in brackets is compared
            // as an address, without the dot or the brackets: those cannot match themselves.
            guard !name.hasSuffix("."), !(name.hasPrefix("[") && name.hasSuffix("]")), IPAddressBytes.parse(name) == nil
            else { continue }
            require(list.matches(host: name, port: port), "entry \(name.debugDescription) does not match itself")
            require(
                list.matches(host: "www." + name, port: port),
                "entry \(name.debugDescription) does not match www.\(name)")
            require(
                list.matches(host: name.uppercased(), port: port) || name.uppercased().lowercased() != name,
                "entry \(name.debugDescription) is case-sensitive")
        case .network(let network, let bits):
            require(bits >= 0 && bits <= network.count * 8, "prefix length \(bits) for \(network.count) bytes")
            guard let text = addressText(network) else { continue }
            require(list.matches(host: text, port: port), "entry \(text)/\(bits) does not match its own address")
            if network.count == 16 {
                require(
                    list.matches(host: "[" + text + "]", port: port), "entry \(text)/\(bits) does not match [\(text)]")
            }
        }
    }
    return 0
}

private func addressText(_ bytes: [UInt8]) -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
    }
    return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
}
