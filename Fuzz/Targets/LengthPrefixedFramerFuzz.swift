//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `LengthPrefixedFramer` on any bytes cut into any reads (see FramerFuzzSupport.swift).
//
// Input: byte 0 the prefix (width 1, 2, 4 or 8; byte order; counting itself or not), byte 1
// the maximum message length (0...1020, in steps of 4), bytes 2...5 the read sizes, the rest is
// the stream.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLengthPrefixedFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let widths = [1, 2, 4, 8]
    let framer = LengthPrefixedFramer(
        prefix: FramingInteger(width: widths[Int(options % 4)], byteOrder: options & 4 == 0 ? .big : .little),
        prefixCountsItself: options & 8 != 0, maximumMessageLength: 4 * Int(input.byte()))
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    checkFramer(framer, stream: input.rest, sizes: sizes, same: ==)
    return 0
}
