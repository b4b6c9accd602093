//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskKit

// Sources/StreamTaskFraming/Docs.docc.

func framingLandingPage(task: StreamTask) async throws {
    // sample: Sources/StreamTaskFraming/Docs.docc/StreamTaskFraming.md 1
    let framer = LengthPrefixedFramer(prefix: FramingInteger(width: 4), maximumMessageLength: 64 * 1024)
    try await task.send(ByteBuffer(string: "hello"), framedBy: framer, timeout: 5)
    for try await message in task.messages(framedBy: framer) {
        print(String(buffer: message))
    }
    // end sample
}

func framingBatchesAndLongLines(task: StreamTask) async throws {
    // sample: Sources/StreamTaskFraming/Docs.docc/StreamTaskFraming.md 2
    let lines = LineFramer(ending: .crlf, maximumLineLength: 510)
    while true {
        var batch: [ByteBuffer] = []
        do {
            guard let first = try await task.readMessage(framedBy: lines, timeout: 60) else { break }
            batch.append(first)
            while let next = try task.readBufferedMessage(framedBy: lines) { batch.append(next) }
        } catch let error as StreamTaskError where error.code == .invalidFrame {
            try await task.write(Data("500 Line too long\r\n".utf8), timeout: 5)
            guard try await task.skipLine(timeout: 60) else { break }
            continue
        }
        try await task.write(Data("250 \(batch.count) lines\r\n".utf8), timeout: 5)
    }
    // end sample
}

func framingTypedMessages(task: StreamTask, framer: LengthPrefixedFramer) async throws {
    // sample: Sources/StreamTaskFraming/Docs.docc/StreamTaskFraming.md 3
    struct Order: Codable { var item: String; var count: Int }

    try await task.send(Order(item: "tea", count: 2), framedBy: framer, encoder: JSONEncoder(), timeout: 5)
    for try await order in task.messages(of: Order.self, framedBy: framer, decoder: JSONDecoder()) {
        print(order.item)
    }
    // end sample
}
