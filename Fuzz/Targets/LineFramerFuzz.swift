//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `LineFramer` on any bytes cut into any reads (see FramerFuzzSupport.swift).
//
// Input: byte 0 the options (ending, over-long lines, unended last line), byte 1 the maximum
// line length (1...256), bytes 2...5 the read sizes, the rest is the stream.

import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let endings: [LineFramer.Ending] = [.lf, .crlf, .either]
    let framer = LineFramer(
        ending: endings[Int(options % 3)], maximumLineLength: 1 + Int(input.byte()),
        overlongLines: options & 4 == 0 ? .fail : .cut, acceptsUnendedLastLine: options & 8 != 0)
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    checkFramer(framer, stream: input.rest, sizes: sizes, same: ==)
    return 0
}
