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
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// A service type of its own for one test (`_stk` and eight random letters and digits), so
/// tests running side by side never see each other's services.
func uniqueServiceType() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    return "_stk" + String((0..<8).map { _ in alphabet.randomElement()! }) + "._tcp"
}

/// A service name of its own for one test.
func uniqueServiceName(_ prefix: String = "StreamTaskKit test") -> String {
    "\(prefix) \(UInt32.random(in: 0...UInt32.max))"
}

/// Fails the test, saying how to start the daemon, when no DNS-SD daemon answers.
func requireDaemon(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    do {
        try await DNSSDDaemon.checkReachable()
    } catch {
        Issue.record(
            """
            The DNS-SD tests need a running avahi-daemon (with its D-Bus system bus), and none answered.
            Start a loopback-only one with `bash scripts/start-services.sh` (scripts/test.sh does this \
            by itself), then run the tests again. The library said: \(error)
            """,
            sourceLocation: sourceLocation
        )
        throw error
    }
}

/// Runs `body`, failing with a clear message if it takes longer than `seconds`.
///
/// A race, not a task group: a task group waits for all its children, so a body stuck in a
/// blocking read would keep the timeout from ever being reported. On timeout the body's task is
/// cancelled and left behind; the caller's clean-up (stopping the child process) unblocks it.
func within<T: Sendable>(
    _ seconds: Double,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let claimed = NIOLockedValueBox(false)
    let claim: @Sendable () -> Bool = {
        claimed.withLockedValue { done in
            defer { done = true }; return !done
        }
    }
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            if claim() { continuation.resume(with: result) }
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            if claim() {
                work.cancel()
                continuation.resume(throwing: TestTimeout(what: what, seconds: seconds))
            }
        }
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    let seconds: Double
    var description: String { "timed out after \(seconds) s waiting for \(what)" }
}

extension DNSSDBrowser {
    /// Browses until an event matching `predicate` arrives (at most `seconds`), and returns it.
    func first(
        within seconds: Double = 20,
        _ what: String,
        where predicate: @escaping @Sendable (DNSSDBrowseEvent) -> Bool
    ) async throws -> DNSSDBrowseEvent {
        try await StreamTaskDNSSDTests.within(seconds, what) {
            for try await event in self where predicate(event) {
                return event
            }
            throw TestTimeout(what: "\(what) (the browse ended)", seconds: seconds)
        }
    }
}

/// Browses `type` until a service appears, calls `withdraw`, and waits until a service goes
/// away (at most 20 s); returns the two events.
func appearThenVanish(
    type: String,
    withdraw: @escaping @Sendable () -> Void
) async throws -> (added: DNSSDBrowseEvent?, removed: DNSSDBrowseEvent?) {
    try await within(20, "a service of \(type) to appear, then go away") {
        var events = DNSSDBrowser(type: type).makeAsyncIterator()
        let added = try await events.next()
        withdraw()
        return (added, try await events.next())
    }
}

/// The path of one of Avahi's command-line tools (avahi-browse, avahi-publish), or an error
/// naming the package that has them.
func avahiTool(_ name: String) throws -> String {
    if let path = programPath(name) { return path }
    throw ChildProcessError(
        description:
            "\(name) is not installed and the Avahi cross-checks need it: run scripts/install-deps.sh (it installs avahi-utils); scripts/test.sh does this for you"
    )
}
