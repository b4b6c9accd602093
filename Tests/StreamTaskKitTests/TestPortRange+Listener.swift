//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import StreamTaskTestSupport

@testable import StreamTaskCore

extension TestPortRange {
    /// A listener of ours on `host` and a port from this range.
    static func listener(host: String = "127.0.0.1", session: StreamSession) async throws -> StreamListener {
        var attempt = 0
        while true {
            let listener = StreamListener(host: host, port: random(), session: session)
            do {
                try await listener.start()
                return listener
            } catch let error as StreamTaskError where error.code == .bindFailed && attempt < 100 {
                attempt += 1
            }
        }
    }
}
