//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `SOCKS5Handshake` on any proxy reply cut into any reads: the outcome and what is sent do not
// depend on how the reply was cut, and once the tunnel is open the leftover is exactly what
// follows the proxy's reply.
//
// Input: byte 0 picks credentials and the target's kind (name, IPv4, IPv6), bytes 1...4 the
// read sizes, the rest is the reply.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSOCKS5(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let credentials = mode & 1 == 1 ? ProxyCredentials(username: "user", password: "secret") : nil
    let host = ["example.com", "192.0.2.1", "2001:db8::1"][Int(mode >> 1) % 3]
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    let reply = input.rest
    let handshake = SOCKS5Handshake(target: SOCKS5Handshake.target(host: host, port: 443), credentials: credentials)

    let whole = HandshakeRun.run(handshake, chunks: reply.isEmpty ? [] : [reply])
    let cut = HandshakeRun.run(handshake, chunks: FuzzInput.chunks(reply, sizes: sizes, maxChunk: 16))
    require(whole == cut, "one read gave \(whole.end), several gave \(cut.end)")
    require((1...3).contains(whole.sent.count), "sent \(whole.sent.count) messages")

    if case .established(let leftover) = whole.end {
        require(reply.hasSuffix(leftover), "the leftover is not the end of the reply")
        // Method selection (2), the authentication reply (2) when that method was chosen, then
        // the connect reply: 4 bytes, the address (4, 16, or a length byte and a name), a port.
        let start = reply[1] == 0x02 ? 4 : 2
        let address: Int
        switch reply[start + 3] {
        case 0x01: address = 4
        case 0x04: address = 16
        default: address = 1 + Int(reply[start + 4])
        }
        let consumed = reply.count - leftover.count
        require(
            consumed == start + 4 + address + 2,
            "the tunnel opened after \(consumed) bytes; the replies had \(start + 4 + address + 2)")
    }
    return 0
}
