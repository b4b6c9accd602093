//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// sample: README.md 2
import Foundation
import StreamTaskKit

let listener = StreamListener(host: "127.0.0.1", port: 0)  // 0: any free port
try await listener.start()
print("listening on port \(listener.port!)")
await withDiscardingTaskGroup { group in
    for await connection in listener.connections {  // ends after listener.shutdown()
        group.addTask {  // echoes lines until the client ends its side, then ends this one
            let newline = Data("\n".utf8)
            while let line = try? await connection.readData(upToAndIncluding: newline, maxLength: 4096, timeout: 0) {
                try? await connection.write(line, timeout: 0)
            }
            connection.closeWrite()
        }
    }
}
// end sample
