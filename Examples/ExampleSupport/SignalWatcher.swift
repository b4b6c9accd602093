//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation

/// Runs a handler on SIGINT or SIGTERM through Dispatch signal sources, off the concurrency
/// pool. The first signal runs the handler; a second one ends the process at once, so a stuck
/// shutdown can still be interrupted.
public final class SignalWatcher: @unchecked Sendable {
    // @unchecked Sendable: `received` is touched only on `queue`, a serial queue that every
    // event handler runs on; `sources` is set once in `init`.
    private let queue = DispatchQueue(label: "examples.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var received = false

    /// Watches `signals`; `handler` runs on the first, a second one exits at once.
    public init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            #if canImport(Darwin)
            // Darwin delivers signals to a dispatch source only when the default action is off.
            // (Linux's Dispatch takes the signal over by itself.)
            signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds the watcher until `cancel()` releases it.
            source.setEventHandler {
                if self.received {
                    exit(128 + number)
                }
                self.received = true
                handler(number)
            }
            source.resume()
            return source
        }
    }

    /// Stops watching.
    public func cancel() {
        for source in sources {
            source.cancel()
        }
    }
}
