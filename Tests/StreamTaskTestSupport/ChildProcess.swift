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

#if canImport(Glibc)
import Glibc
#endif

/// Why a child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// A child process started with `posix_spawn`, in a process group of its own, with no signal
/// blocked and its output in a file; reaped here with `waitpid`.
///
/// A child never outlives its test: one whose `ChildProcess` goes away while it runs (a test
/// that threw before its `stop()`) is killed then, and any still running when the test process
/// exits are killed by an exit handler. Each is killed by its own process group, so nothing
/// that this process did not start is touched.
///
/// Not Foundation's `Process`: a child inherits the signal mask of the thread that spawns it,
/// and a test thread has SIGTERM and SIGCHLD blocked (dante would neither stop nor reap its
/// own children); and `Process` sometimes missed these children's exits under parallel tests,
/// leaving `waitUntilExit()` hanging. The child gets no file descriptor but its standard ones.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `exited` is behind `lock`.
    public let pid: pid_t
    private let lock = NIOLock()
    private var exited = false
    private var status: Int32?

    /// Where the child's standard input writes go with `pipeInput`; `nil` otherwise.
    public let input: FileHandle?
    /// The file that the child's standard output goes to.
    public let outputPath: String

    /// Starts `path` with `arguments`, its standard output into the file `output` and its
    /// standard error there too, or into the file `errors` when given (`/dev/null` to drop it),
    /// and its standard input from `/dev/null`, or from ``input`` when `pipeInput` is set.
    /// `environment` entries are added to (or replace) this process's environment.
    public init(
        _ path: String, _ arguments: [String], output: String, errors: String? = nil, pipeInput: Bool = false,
        environment: [String: String] = [:]
    ) throws {
        outputPath = output
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputEnds: [Int32] = [-1, -1]
        if pipeInput {
            // Close-on-exec, so no other child inherits the write end and keeps the pipe open.
            guard pipe(&inputEnds) == 0 else {
                throw ChildProcessError(description: "pipe failed: \(String(cString: strerror(errno)))")
            }
            _ = fcntl(inputEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(inputEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else: an inherited listening socket would keep accepting connections for a
        // listener that another test has closed.
        guard Self.addCloseFrom(&actions, 3) == 0 else {
            throw ChildProcessError(description: "posix_spawn_file_actions_addclosefrom_np failed")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        if pipeInput { close(inputEnds[0]) }
        guard status == 0 else {
            if pipeInput { close(inputEnds[1]) }
            throw ChildProcessError(description: "could not start \(path): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        input = pipeInput ? FileHandle(fileDescriptor: inputEnds[1], closeOnDealloc: true) : nil
        RunningChildren.shared.add(pid)
    }

    /// A child still running when nothing refers to it any more is stopped and reaped at once:
    /// the test that started it failed before stopping it.
    deinit {
        stop(grace: 0)
    }

    /// Writes `line` and a newline to the child's standard input (needs `pipeInput`).
    public func send(_ line: String) {
        // Not `write(_:)`: it traps on EPIPE, which a child that has exited gives.
        try? input?.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the child's standard input: it reads end of file.
    public func closeInput() {
        try? input?.close()
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not export.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 =
        {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
                fatalError("the C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later needed)")
            }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Whether the child is still running (reaps it if it has exited).
    public func isRunning() -> Bool {
        lock.withLock {
            if exited { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result == -1 && errno == ECHILD) { exited = true }
            if result == pid { self.status = status }
            if exited { RunningChildren.shared.remove(pid) }
            return !exited
        }
    }

    /// The exit code once the child has exited normally and been reaped; nil otherwise.
    public var exitCode: Int32? {
        lock.withLock {
            guard let status, status & 0x7f == 0 else { return nil }  // WIFEXITED
            return (status >> 8) & 0xff  // WEXITSTATUS
        }
    }

    /// SIGTERM to the child's process group, SIGKILL after `grace` seconds; returns once the
    /// child is reaped (or after another 5 s, which never happens after SIGKILL).
    public func stop(grace: TimeInterval = 5) {
        guard isRunning() else { return }
        kill(-pid, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning() && Date() < deadline { usleep(10_000) }
        kill(-pid, SIGKILL)  // the group: dante's children too
        let last = Date().addingTimeInterval(5)
        while isRunning() && Date() < last { usleep(10_000) }
    }
}

/// The process groups of the children started and not yet reaped, killed when the test process
/// exits: nothing a test started may outlive the run, whatever path the test took.
private final class RunningChildren: Sendable {
    static let shared: RunningChildren = {
        let registry = RunningChildren()
        atexit { RunningChildren.shared.killAll() }
        return registry
    }()

    private let pids = NIOLockedValueBox(Set<pid_t>())

    func add(_ pid: pid_t) {
        pids.withLockedValue { _ = $0.insert(pid) }
    }

    func remove(_ pid: pid_t) {
        pids.withLockedValue { _ = $0.remove(pid) }
    }

    /// SIGKILL to each remaining child's process group (its own children too).
    private func killAll() {
        for pid in pids.withLockedValue({ $0 }) { kill(-pid, SIGKILL) }
    }
}

extension ChildProcess {
    /// Runs `path` with `arguments` in `directory` to its end, blocking the calling thread (call
    /// it off the cooperative pool), and returns its exit code (nil if a signal ended it) and
    /// what it wrote. For short tools such as `openssl`: Foundation's `Process.run()` on Linux
    /// sometimes crashes reading `/proc/self/fd` (swift-corelibs-foundation PR 5472), more often
    /// the more processes a run spawns.
    public static func runToEnd(
        _ path: String, _ arguments: [String], in directory: String, timeout: TimeInterval = 60
    ) throws -> (exitCode: Int32?, output: String) {
        let output = directory + "/.child-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        // The shell moves to the directory, then becomes the program.
        let child = try ChildProcess(
            "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory, path] + arguments, output: output)
        let deadline = Date().addingTimeInterval(timeout)
        while child.isRunning() && Date() < deadline { usleep(5_000) }
        child.stop(grace: 0)
        return (child.exitCode, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
