//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `NetlinkMessage.decode` on any datagram: it decodes or throws, never traps, and an error's
// offset is inside the input. Everything decoded can be described (as the route monitor logs it).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetlinkMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let envelopes: [NetlinkEnvelope]
    do {
        envelopes = try NetlinkMessage.decode(bytes)
    } catch {
        require((0...bytes.count).contains(error.offset), "error offset \(error.offset) outside \(bytes.count) bytes")
        _ = error.description
        return 0
    }
    require(
        envelopes.count <= bytes.count / Netlink.headerLength, "\(envelopes.count) messages from \(bytes.count) bytes")
    for envelope in envelopes {
        switch envelope.message {
        case .route(let route, _):
            for address in [route.destination, route.gateway, route.preferredSource].compactMap({ $0 }) {
                require(
                    address.bytes.count == 4 || address.bytes.count == 16, "address of \(address.bytes.count) bytes")
                _ = address.description
                _ = address.isLoopback
            }
        case .address(let address, _):
            if let value = address.address {
                _ = value.description
                require(RouteAddress(value.description) == value, "\(value) does not parse back")
            }
        case .link(let link, _):
            _ = link.isUp
        case .done, .error, .other:
            break
        }
    }
    return 0
}
