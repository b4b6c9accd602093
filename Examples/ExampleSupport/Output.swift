//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Writes `message` and a newline to standard error.
public func printError(_ message: String) {
    try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
}

/// Writes `line` and a newline to standard output at once (unbuffered), so that a script
/// reading a pipe sees each line as it happens, in order with what goes to standard error.
///
/// Not `print` and `fflush(nil)`: flushing every stdio stream locks standard input too, and
/// while another thread waits in `readLine()` that blocks until a line arrives, holding the
/// lock that `getaddrinfo` needs to open `/etc/hosts`.
public func printLine(_ line: String) {
    // `write(contentsOf:)`, which throws, not `write(_:)`, which traps when the reader of a
    // pipe has gone (EPIPE): a closed pipe must not crash the program.
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
