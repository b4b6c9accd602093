//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A program run by a test with its output in a file, read back while it runs.
public final class ObservedProcess: Sendable {
    public let child: ChildProcess
    public let directory: URL
    public var outputFile: URL { directory.appendingPathComponent("output.txt") }

    /// Starts `path` with `arguments` in a fresh directory (also its working directory's stand-in
    /// for files it writes), standard input a pipe when `pipeInput`.
    public init(
        _ path: String, _ arguments: [String], pipeInput: Bool = false, environment: [String: String] = [:]
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        child = try ChildProcess(
            path, arguments, output: directory.appendingPathComponent("output.txt").path, pipeInput: pipeInput,
            environment: environment)
    }

    /// Everything the program wrote so far.
    public var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits until the output contains `text` (or the program exits); returns whether it does.
    public func waitForOutput(containing text: String, seconds: Double = 20) async -> Bool {
        _ = await eventually(seconds) { output.contains(text) || !child.isRunning() }
        return output.contains(text)
    }

    /// Waits until the program exits by itself; returns whether it did within `seconds`.
    public func waitForExit(seconds: Double = 20) async -> Bool {
        await eventually(seconds) { !child.isRunning() }
    }

    /// Sends one line to the program's standard input.
    public func send(_ line: String) { child.send(line) }

    /// Stops the program (by its process group) and removes its files.
    public func stop() async {
        let child = child
        child.closeInput()
        await offCooperativePool { child.stop(grace: 2) }
        try? FileManager.default.removeItem(at: directory)
    }
}
