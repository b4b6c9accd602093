//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `ServerHelloParser` on any bytes cut into any reads: the outcome does not depend on the cuts
// (within its limit), and once known it does not change.
//
// Input: bytes 0...3 the read sizes, the rest is the stream.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerHello(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    let stream = input.rest
    let limit = 16 * 1024

    var whole = ServerHelloParser(limit: limit)
    let wholeOutcome = stream.isEmpty ? whole.outcome : whole.feed(ByteBuffer(bytes: stream))

    var cut = ServerHelloParser(limit: limit)
    var first: ServerHelloParser.Outcome?
    for chunk in FuzzInput.chunks(stream, sizes: sizes, maxChunk: 32) {
        let outcome = cut.feed(ByteBuffer(bytes: chunk))
        if let first { require(outcome == first, "the outcome changed from \(first) to \(outcome)") }
        if outcome != .needMoreBytes && first == nil { first = outcome }
    }
    if stream.count <= limit {
        require(cut.outcome == wholeOutcome, "one read gave \(wholeOutcome), several gave \(cut.outcome)")
    }
    if case .cipherSuite(let suite) = wholeOutcome {
        _ = ServerHelloParser.name(of: suite)
    }
    return 0
}
