//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `DelimiterFramer` on any bytes cut into any reads (see FramerFuzzSupport.swift).
//
// Input: byte 0 the delimiter's length (1...4), bytes 1...4 its bytes (the first of them
// used), byte 5 the maximum message length (0...255), bytes 6...9 the read sizes, the rest is
// the stream.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDelimiterFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let length = 1 + Int(input.byte() % 4)
    let delimiter = (0..<4).map { _ in input.byte() }.prefix(length)
    let framer = DelimiterFramer(delimiter: delimiter, maximumMessageLength: Int(input.byte()))
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    checkFramer(framer, stream: input.rest, sizes: sizes, same: ==)
    return 0
}
