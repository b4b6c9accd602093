//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if canImport(Darwin)
import CoreFoundation
#endif

/// A run-loop input source that another thread signals: what a Darwin stream or service is in
/// the run loops it is scheduled in.
///
/// While it is added to a run loop's mode, that mode is not empty, so `RunLoop.run()` keeps
/// going with nothing due; when it is signalled, the run loop performs it as an input source,
/// so `run(mode:before:)` returns after it, as it does after a Darwin stream's event. On Linux
/// it is swift-corelibs-foundation's `RunLoop._Source` (a CFRunLoop version-0 source), and a
/// run loop asleep is woken by a timer that fires at once; on Darwin it is a `CFRunLoopSource`,
/// woken with `CFRunLoopWakeUp`.
///
/// Not `Sendable`: its owner adds, removes and signals it under a lock of its own.
/// `CFRunLoopAddSource`, `CFRunLoopRemoveSource` and `CFRunLoopSourceSignal` may be called
/// from any thread.
final class RunLoopWakeSource {
    #if canImport(Darwin)
    private var source: CFRunLoopSource!
    private let perform: () -> Void
    #else
    private let source: LinuxSource
    #endif

    /// A source that calls `perform` on the run loop that takes its signal.
    init(perform: @escaping () -> Void) {
        #if canImport(Darwin)
        self.perform = perform
        var context = CFRunLoopSourceContext()
        context.info = Unmanaged.passUnretained(self).toOpaque()
        context.perform = { info in
            guard let info else { return }
            Unmanaged<RunLoopWakeSource>.fromOpaque(info).takeUnretainedValue().perform()
        }
        source = CFRunLoopSourceCreate(kCFAllocatorDefault, 0, &context)
        #else
        source = LinuxSource(perform: perform)
        #endif
    }

    func add(to runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        #if canImport(Darwin)
        CFRunLoopAddSource(runLoop.getCFRunLoop(), source, CFRunLoopMode(mode.rawValue as CFString))
        #else
        runLoop._add(source, forMode: mode)
        #endif
    }

    func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        #if canImport(Darwin)
        CFRunLoopRemoveSource(runLoop.getCFRunLoop(), source, CFRunLoopMode(mode.rawValue as CFString))
        #else
        runLoop._remove(source, for: mode)
        #endif
    }

    /// Marks the source as due and wakes `runLoops`, so one of them performs it.
    func signal(waking runLoops: [(RunLoop, [RunLoop.Mode])]) {
        #if canImport(Darwin)
        CFRunLoopSourceSignal(source)
        for (runLoop, _) in runLoops { CFRunLoopWakeUp(runLoop.getCFRunLoop()) }
        #else
        source.signal()
        // swift-corelibs-foundation has no public CFRunLoopWakeUp: a timer due now wakes a
        // sleeping run loop, which then performs the signalled source.
        for (runLoop, modes) in runLoops {
            let timer = Timer(timeInterval: 0, repeats: false) { _ in }
            for mode in modes { runLoop.add(timer, forMode: mode) }
        }
        #endif
    }

    deinit {
        #if canImport(Darwin)
        CFRunLoopSourceInvalidate(source)
        #else
        source.invalidate()
        #endif
    }
}

#if !canImport(Darwin)
/// swift-corelibs-foundation's version-0 run-loop source, performing a closure.
private final class LinuxSource: RunLoop._Source {
    private let action: () -> Void

    init(perform: @escaping () -> Void) {
        action = perform
        super.init()
    }

    override func perform() {
        action()
    }
}
#endif
