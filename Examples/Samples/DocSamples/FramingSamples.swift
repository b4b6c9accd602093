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

func framingTypedMessages(task: StreamTask, framer: LengthPrefixedFramer) async throws {
    // sample: Sources/StreamTaskFraming/Docs.docc/StreamTaskFraming.md 2
    struct Order: Codable { var item: String; var count: Int }

    try await task.send(Order(item: "tea", count: 2), framedBy: framer, encoder: JSONEncoder(), timeout: 5)
    for try await order in task.messages(of: Order.self, framedBy: framer, decoder: JSONDecoder()) {
        print(order.item)
    }
    // end sample
}
