//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// sample: README.md 1
import Foundation
import StreamTaskKit

let task = StreamSession().streamTask(withHostName: "127.0.0.1", port: 7007)
task.resume()  // connects in the background; operations issued meanwhile wait for it
try await task.write(Data("hello\n".utf8), timeout: 5)
let reply = try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 4096, timeout: 5)
print(String(decoding: reply ?? Data(), as: UTF8.self), terminator: "")  // hello
task.closeWrite()  // the server reads end of stream, and ends its side in turn
let (_, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 4096, timeout: 5)
print("the server closed its side:", atEOF)  // true
// end sample
