//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the terminal's settings back when the process dies of a signal: a crash (a trap, a
/// bad access, an abort) or a hang-up. Without it a crash leaves the shell without echo, and
/// the user has to type `reset` blind.
///
/// The handler only calls `tcsetattr` (async-signal-safe), then hands the signal to whatever
/// handled it before (the Swift runtime's backtracer, or the default action), so the process
/// still dies as it would have, with its backtrace or core.
enum TerminalCrashGuard {
    /// The signals that end the process without running Swift code of ours. SIGINT and SIGTERM
    /// are not here: `SignalWatcher` handles those and restores the terminal itself.
    static let signals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGHUP, SIGQUIT]

    // nonisolated(unsafe): written once in `install`, before any handler can run, and only
    // read afterwards (from signal handlers, which cannot take locks).
    nonisolated(unsafe) private static var saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 64)

    /// Restores `original` on standard input if one of ``signals`` arrives. Call once, before
    /// changing the terminal's settings.
    static func install(restoring original: termios) {
        saved.initialize(to: original)
        for number in signals {
            var action = sigaction()
            #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = handle
            #else
            action.__sigaction_handler.sa_handler = handle
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, previous + Int(number))
        }
    }

    /// The signal handler: the terminal back, the previous handler back, the signal again.
    private static let handle: @convention(c) (Int32) -> Void = { number in
        tcsetattr(0, TCSANOW, TerminalCrashGuard.saved)
        sigaction(number, TerminalCrashGuard.previous + Int(number), nil)
        // Delivered when this handler returns (the signal is blocked until then); a fault's
        // instruction also runs again and faults under the previous handler.
        raise(number)
    }
}
