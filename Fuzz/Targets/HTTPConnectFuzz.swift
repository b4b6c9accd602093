//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `HTTPConnectHandshake` on any proxy reply cut into any reads: the outcome (tunnel open with
// the same leftover bytes, or the same error) does not depend on how the reply was cut, the
// leftover is exactly what follows the final head, and no head over the limit is accepted.
//
// Input: byte 0 says whether credentials are sent, bytes 1...4 the read sizes, the rest is the reply.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPConnect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let credentials = input.byte() & 1 == 1 ? ProxyCredentials(username: "user", password: "secret") : nil
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    let reply = input.rest
    let handshake = HTTPConnectHandshake(host: "example.com", port: 443, credentials: credentials)

    let whole = HandshakeRun.run(handshake, chunks: reply.isEmpty ? [] : [reply])
    let cut = HandshakeRun.run(handshake, chunks: FuzzInput.chunks(reply, sizes: sizes, maxChunk: 64))
    require(whole == cut, "one read gave \(whole.end), several gave \(cut.end)")
    require(whole.sent.count == 1, "CONNECT sent \(whole.sent.count) messages")

    if case .established(let leftover) = whole.end {
        require(reply.hasSuffix(leftover), "the leftover is not the end of the reply")
        let head = Array(reply[..<(reply.count - leftover.count)])
        // Lines end in CRLF or, as RFC 9112 (section 2.2) allows, a bare LF.
        require(
            head.hasSuffix(Array("\n\n".utf8)) || head.hasSuffix(Array("\n\r\n".utf8)),
            "the consumed head does not end with an empty line")
        require(head.count <= HTTPConnectHandshake.maximumHeadLength, "accepted \(head.count) bytes of heads")
    }
    return 0
}
