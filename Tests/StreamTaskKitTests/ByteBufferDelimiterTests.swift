//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

@Suite struct ByteBufferDelimiterTests {
    @Test(arguments: [
        ("abc\r\ndef", 100, 5 as Int?),
        ("abc\r\ndef", 5, 5),
        ("abc\r\ndef", 4, nil),
        ("a\rb\r\n", 100, 5),
        ("\r\r\r\n", 100, 4),
        ("no delimiter", 100, nil),
        ("", 100, nil),
    ])
    func findsTheEndOfTheFirstDelimiter(text: String, limit: Int, expected: Int?) {
        let buffer = ByteBuffer(string: text)
        #expect(buffer.endOfFirst(Array("\r\n".utf8), within: limit) == expected)
    }

    @Test func searchesOnlyReadableBytes() {
        var buffer = ByteBuffer(string: "x\ny\n")
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(buffer.endOfFirst([10], within: 10) == 2)
    }
}
