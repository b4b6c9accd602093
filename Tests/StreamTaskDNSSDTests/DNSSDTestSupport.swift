import Foundation
import NIOConcurrencyHelpers
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
    let claim: @Sendable () -> Bool = { claimed.withLockedValue { done in defer { done = true }; return !done } }
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

/// A program we run for a test (avahi-publish, avahi-browse), stopped by its PID when done.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: Process and Pipe are used by one test at a time, and the output
    // is read from one task only.
    private let process = Process()
    private let output = Pipe()
    private var buffered = Data()
    /// Each line is read on a thread of its own; this orders those threads' use of `buffered`
    /// in a way ThreadSanitizer can see (the continuation that chains them is not instrumented).
    private let readLock = NSLock()

    /// Starts `program` (looked up on PATH) with `arguments`; standard output and error both
    /// go to the pipe this object reads.
    init(_ program: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Reads output lines until one contains `text` (at most `seconds`); returns that line.
    func waitForLine(containing text: String, within seconds: Double = 20) async throws -> String {
        try await StreamTaskDNSSDTests.within(seconds, "a line with \"\(text)\" from the child process") {
            while let line = await self.readLine() {
                if line.contains(text) { return line }
            }
            throw TestTimeout(what: "\"\(text)\" (the process ended first)", seconds: seconds)
        }
    }

    /// Every line of output until the process exits.
    func allLines() async -> [String] {
        var lines: [String] = []
        while let line = await readLine() { lines.append(line) }
        return lines
    }

    private func readLine() async -> String? {
        // A thread of its own: Dispatch's global queue on Linux adds threads only slowly while
        // others block, and these reads block until the child writes.
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.blockingReadLine()) }.start()
        }
    }

    private func blockingReadLine() -> String? {
        readLock.lock()
        defer { readLock.unlock() }
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered = Data(buffered[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                guard !buffered.isEmpty else { return nil }
                defer { buffered = Data() }
                return String(decoding: buffered, as: UTF8.self)
            }
            buffered.append(chunk)
        }
    }

    /// Stops the process (SIGKILL to its PID) and waits for it to exit.
    ///
    /// Not SIGTERM: a process started from a dispatch worker thread inherits that thread's
    /// signal mask, in which SIGTERM is blocked. (avahi-publish's service is withdrawn all the
    /// same: the daemon drops a client's services when its D-Bus connection closes.)
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
