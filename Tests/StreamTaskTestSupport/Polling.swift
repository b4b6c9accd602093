//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Polls `condition` every 10 ms for up to `seconds`; for state that has no event to await
/// (another process's output, a kernel table). Returns whether it became true.
///
/// The default is generous: a condition that holds returns at once, and under the thread
/// sanitizer, with every suite running at once on two cores, connecting alone has been seen
/// to take 7 seconds.
public func eventually(_ seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// The full path of the program `name`: on PATH first, then in the usual system folders
/// (posix_spawn does not search, and root's PATH may lack /usr/sbin); `nil` if it is nowhere.
public func programPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders =
        path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin"]
    return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
