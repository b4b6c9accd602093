//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `TypeLengthValueFramer` on any bytes cut into any reads (see FramerFuzzSupport.swift).
//
// Input: byte 0 the header (type 1 to 4 bytes, length 1, 2, 4 or 8, byte order), byte 1 the
// maximum value length (0...1020, in steps of 4), bytes 2...5 the read sizes, the rest is the
// stream.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypeLengthValueFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let lengths = [1, 2, 4, 8]
    let framer = TypeLengthValueFramer(
        typeWidth: 1 + Int(options % 4), lengthWidth: lengths[Int((options >> 2) % 4)],
        byteOrder: options & 16 == 0 ? .big : .little, maximumValueLength: 4 * Int(input.byte()))
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    checkFramer(framer, stream: input.rest, sizes: sizes, same: ==)
    return 0
}
