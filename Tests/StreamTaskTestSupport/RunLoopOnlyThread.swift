//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers

/// A thread as many Darwin programs start one for their network objects: it sets them up in
/// its run loop, then calls `RunLoop.current.run()` and nothing else, which returns only once
/// the run loop has no sources or timers left.
///
/// On Darwin a scheduled stream, or a service or browser at work, is such a source. So the
/// thread hears of its objects until they are closed or stopped, and ends then.
public final class RunLoopOnlyThread: @unchecked Sendable {
    // @unchecked Sendable: `runLoop` is written once before `ready` is signalled; the times are
    // behind their lock.
    private var runLoop: RunLoop?
    private let ready = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let times = NIOLockedValueBox<(started: Date?, returned: Date?)>((nil, nil))

    /// Starts the thread: `setUp` runs on it, then `RunLoop.current.run()`.
    public init(_ setUp: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            runLoop = RunLoop.current
            setUp()
            times.withLockedValue { $0.started = Date() }
            ready.signal()
            RunLoop.current.run()
            times.withLockedValue { $0.returned = Date() }
            ended.signal()
        }
        thread.start()
        ready.wait()
    }

    /// How long `run()` ran, once it has returned; `nil` while it runs.
    public var runTime: TimeInterval? {
        times.withLockedValue { times in
            guard let started = times.started, let returned = times.returned else { return nil }
            return returned.timeIntervalSince(started)
        }
    }

    /// Waits up to `seconds` for `run()` to return; whether it did. If it did not, `free` gets
    /// the thread's run loop, on the caller's thread, to remove what keeps it running, and the
    /// run loop is woken so that it returns and the thread ends.
    public func waitForRunToReturn(within seconds: Double, orFree free: (RunLoop) -> Void) -> Bool {
        if ended.wait(timeout: .now() + seconds) == .success { return true }
        if let runLoop { free(runLoop) }
        runLoop?.add(Timer(timeInterval: 0, repeats: false) { _ in }, forMode: .default)
        _ = ended.wait(timeout: .now() + 10)
        return false
    }
}
