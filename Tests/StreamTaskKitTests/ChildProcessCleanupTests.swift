//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A program a test starts must not outlive the test, even when the test throws before it stops
/// the program: the peers of the chat and proxy tests (ngIRCd, tinyproxy) once did.
@Suite struct ChildProcessCleanupTests {
    /// Whether a process with `pid` exists (zombies included, so a child not reaped counts).
    private static func exists(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// Starts `sleep 60` off the cooperative pool, lets `body` do what a test would with it,
    /// drops it, and returns its process id.
    private static func startAndDrop(_ body: @escaping @Sendable (ChildProcess) -> Void) async throws -> pid_t {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("child-cleanup-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        return try await offCooperativePool {
            Result { () throws -> pid_t in
                let child = try ChildProcess("/bin/sleep", ["60"], output: output)
                body(child)
                return child.pid
            }
        }.get()
    }

    @Test func aChildThatNobodyStoppedIsKilledWhenItsOwnerGoesAway() async throws {
        // Started and dropped without stop(), as a test that threw midway leaves it.
        let pid = try await Self.startAndDrop { child in #expect(child.isRunning()) }
        #expect(!Self.exists(pid), "the sleep started by the test is still there after its owner went away")
    }

    @Test func aStoppedChildIsReapedAndItsOwnerGoesAwayQuietly() async throws {
        let pid = try await Self.startAndDrop { child in
            child.stop(grace: 1)
            #expect(!child.isRunning())
        }
        #expect(!Self.exists(pid))
    }
}
