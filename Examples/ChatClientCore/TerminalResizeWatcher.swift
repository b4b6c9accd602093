//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a handler each time the terminal's size changes (SIGWINCH), through a Dispatch signal
/// source, off the concurrency pool.
final class TerminalResizeWatcher: @unchecked Sendable {
    // @unchecked Sendable: `source` is set once in `init` and only used through Dispatch's own
    // thread-safe calls (`cancel()`) afterwards.
    private let source: any DispatchSourceSignal

    /// Calls `handler` on a serial queue of its own after each SIGWINCH, until ``cancel()``.
    init(_ handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: DispatchQueue(label: "chat-client resizes"))
        source.setEventHandler(handler: handler)
        source.resume()
    }

    /// Stops watching.
    func cancel() {
        source.cancel()
    }
}
