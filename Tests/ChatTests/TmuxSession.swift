//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// A tmux server of our own (its own socket), running one program in a detached session.
struct TmuxSession {
    let tmux: String
    let socket: String

    /// Starts `command` in a detached session of `width`×`height` cells.
    func start(_ command: String, width: Int, height: Int) async throws {
        try await run(["new-session", "-d", "-s", "test", "-x", "\(width)", "-y", "\(height)", command])
    }

    /// Types `text` and Enter.
    func type(_ text: String) async throws {
        try await run(["send-keys", "-t", "test", "-l", text])
        try await run(["send-keys", "-t", "test", "Enter"])
    }

    /// Types `text` without Enter.
    func typeWithoutEnter(_ text: String) async throws {
        try await run(["send-keys", "-t", "test", "-l", text])
    }

    /// Pastes `text` into the pane as a terminal pastes a selection: all of it at once, each
    /// line ending as Enter does.
    func paste(_ text: String) async throws {
        try await run(["set-buffer", "-b", "stk-paste", text])
        try await run(["paste-buffer", "-b", "stk-paste", "-d", "-t", "test"])
    }

    /// Presses a key by tmux's name for it (`C-c` for Ctrl-C).
    func press(_ key: String) async throws {
        try await run(["send-keys", "-t", "test", key])
    }

    /// Makes the window `width`×`height` cells, as a terminal window resized by its user.
    func resize(width: Int, height: Int) async throws {
        try await run(["resize-window", "-t", "test", "-x", "\(width)", "-y", "\(height)"])
    }

    /// What the session's screen shows now.
    func screen() async -> String {
        (try? await output(["capture-pane", "-p", "-t", "test"])) ?? ""
    }

    /// Waits for `text` on the screen; records what the screen shows if it never appears.
    func expectScreen(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if await waitForScreen(containing: text) { return }
        let shown = await screen()
        Issue.record("the screen never showed \"\(text)\"; it shows:\n\(shown)", sourceLocation: sourceLocation)
    }

    func waitForScreen(containing text: String, seconds: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await screen().contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// A value of the session's pane, by tmux's format (`#{pane_tty}`, `#{pane_pid}`).
    func paneValue(_ format: String) async -> String {
        ((try? await output(["display-message", "-p", "-t", "test", format])) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Keeps the pane (and its terminal) open after its program ends.
    func remainOnExit() async throws {
        try await run(["set-option", "-t", "test", "remain-on-exit", "on"])
    }

    /// Stops this tmux server (and so the program in it) by its process id.
    func stop() async {
        guard
            let pid = try? await output(["display-message", "-p", "-t", "test", "#{pid}"]).trimmingCharacters(
                in: .whitespacesAndNewlines),
            let number = Int32(pid)
        else { return }
        kill(number, SIGTERM)
    }

    private func run(_ arguments: [String]) async throws {
        _ = try await output(arguments)
    }

    private func output(_ arguments: [String]) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out").path
        let child = try ChildProcess(tmux, ["-L", socket] + arguments, output: file)
        await offCooperativePool {
            let deadline = Date().addingTimeInterval(10)
            while child.isRunning() && Date() < deadline { usleep(10_000) }
            child.stop(grace: 0)
        }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }
}
