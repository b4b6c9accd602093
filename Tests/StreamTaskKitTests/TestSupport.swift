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
import NIOCore
import NIOPosix
import Testing

@testable import StreamTaskCore

/// A listener of ours on 127.0.0.1, on a port the system picked.
struct LoopbackServer {
    let listener: StreamListener
    let port: Int

    static func start(
        maximumConnections: Int = .max,
        session: StreamSession = StreamSession()
    ) async throws -> LoopbackServer {
        let listener = StreamListener(
            host: "127.0.0.1", port: 0, maximumConnections: maximumConnections, session: session)
        try await listener.start()
        let port = try #require(listener.port)
        #expect(port > 0)
        return LoopbackServer(listener: listener, port: port)
    }

    /// The next accepted connection.
    func accept(_ iterator: inout StreamListener.Connections.AsyncIterator) async throws -> StreamTask {
        try #require(await iterator.next())
    }

    func stop() async {
        await listener.shutdown(gracePeriod: 0)
    }

    /// A listener, a client task connected to it, and the task the listener accepted for it.
    /// Both ends run on `eventLoopGroup`: a test that keeps them busy gives them a loop of
    /// its own, so that the other tests' connections on the shared loops do not wait behind it.
    static func connectedPair(
        configuration: StreamSession.Configuration = .default,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> (server: LoopbackServer, client: StreamTask, peer: StreamTask) {
        let server = try await start(session: StreamSession(eventLoopGroup: eventLoopGroup))
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession(configuration: configuration, eventLoopGroup: eventLoopGroup)
            .loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        return (server, client, peer)
    }
}

extension StreamSession {
    /// A task to 127.0.0.1 on `port`, already resumed.
    func loopbackTask(port: Int) -> StreamTask {
        let task = streamTask(withHostName: "127.0.0.1", port: port)
        task.resume()
        return task
    }
}

extension StreamTask {
    func write(_ text: String) async throws {
        try await write(Data(text.utf8), timeout: 10)
    }

    /// Reads exactly `count` bytes as text (fails the test at a premature end of stream).
    func readText(count: Int) async throws -> String {
        let (data, _) = try await readData(ofMinLength: count, maxLength: count, timeout: 10)
        let text = String(decoding: try #require(data), as: UTF8.self)
        #expect(text.utf8.count == count)
        return text
    }

    /// Reads one CRLF-terminated line (at most 512 bytes) as text, CRLF included.
    func readLine() async throws -> String {
        let line = try await readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 512, timeout: 10)
        return String(decoding: try #require(line), as: UTF8.self)
    }

    /// Upgrades this client task and its `server` peer to TLS at once, as both ends of a
    /// STARTTLS exchange do after the go-ahead.
    func startTLS(with server: StreamTask, serverConfiguration: StreamTLSConfiguration) async throws {
        async let serverSide: Void = server.startTLS(asServerWith: serverConfiguration, timeout: 10)
        try await startTLS(timeout: 10)
        try await serverSide
    }

    /// Stops TLS on this task and its peer at once.
    func stopTLS(with peer: StreamTask) async throws {
        async let peerSide: Void = peer.stopTLS(timeout: 10)
        try await stopTLS(timeout: 10)
        try await peerSide
    }

    /// Reads until end of stream and returns everything as text.
    func readToEnd() async throws -> String {
        var all = Data()
        while true {
            let (data, atEOF) = try await readData(ofMinLength: 1, maxLength: 65536, timeout: 10)
            all.append(data ?? Data())
            if atEOF { return String(decoding: all, as: UTF8.self) }
        }
    }

    /// The events so far, up to and including completion.
    func collectEvents() async -> [StreamTaskEvent] {
        var collected: [StreamTaskEvent] = []
        for await event in events {
            collected.append(event)
        }
        return collected
    }

    /// Waits until the task has completed and returns the error it completed with.
    @discardableResult
    func waitUntilCompleted() async -> StreamTaskError? {
        for await event in events {
            if case .completed(let error) = event { return error }
        }
        return self.streamTaskError
    }
}

extension StreamTask {
    /// Runs `body` with the task's driver on its event loop, after what the loop was asked to do
    /// before it.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (StreamTaskDriver) -> T) async throws -> T {
        try await eventLoop.submit { body(self.driver) }.get()
    }

    /// Issues a read of exactly `count` bytes with a completion handler, at once (its hop to
    /// the loop comes before any issued after it); the recorder gets its text, or its error.
    func recordedRead(count: Int) -> Recorder<String> {
        let got = Recorder<String>()
        readData(ofMinLength: count, maxLength: count, timeout: 10) { data, _, error in
            got.append(data.map { String(decoding: $0, as: UTF8.self) } ?? "\(error!)")
        }
        return got
    }

    /// Polls `condition` on the task's event loop every 10 ms for up to 10 s.
    func eventuallyOnLoop(_ condition: @escaping @Sendable (StreamTaskDriver) -> Bool) async throws -> Bool {
        for _ in 0..<1000 {
            if try await onLoop(condition) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

@discardableResult
/// Runs `body` and returns the code of the `StreamTaskError` it threw (fails the test otherwise).
func expectStreamError<T>(
    _ expected: StreamTaskError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> StreamTaskError? {
    do {
        _ = try await body()
        Issue.record("expected \(expected), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as StreamTaskError {
        #expect(error.code == expected, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StreamTaskError \(expected), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A peer written with Python's standard library (`Peers/peer.py`), serving one connection.
///
/// A ``ChildProcess``, not Foundation's `Process`: `Process.run()` on Linux sometimes crashes the
/// test process (swift-corelibs-foundation PR 5472), and a child whose output is a pipe to the
/// test runner then keeps the runner waiting for ever. The peer prints to a file instead.
final class PythonPeer: Sendable {
    private let child: ChildProcess
    private let lines: ChildOutputLines
    /// Where the peer's standard error goes: kept apart, so that a warning never comes before
    /// the port, and removed with the peer.
    private let errors: String
    let port: Int

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Peers/peer.py")
        .path

    private init(child: ChildProcess, lines: ChildOutputLines, errors: String, port: Int) {
        self.child = child
        self.lines = lines
        self.errors = errors
        self.port = port
    }

    /// Starts the peer in `mode` and waits for it to report its port.
    static func start(_ mode: String, _ arguments: String...) async throws -> PythonPeer {
        try await launch(script: script, mode: mode, arguments: arguments, debianPython: false)
    }

    /// Starts another script of `Peers/` that prints its port first, with `mode` as its first
    /// argument, under Debian's Python (the script may use Debian's python3-* packages).
    static func start(script name: String, mode: String, arguments: [String] = []) async throws -> PythonPeer {
        let script = URL(fileURLWithPath: Self.script).deletingLastPathComponent().appendingPathComponent(name).path
        return try await launch(script: script, mode: mode, arguments: arguments, debianPython: true)
    }

    private static func launch(
        script: String,
        mode: String,
        arguments: [String],
        debianPython: Bool
    ) async throws -> PythonPeer {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("python-peer-\(UUID().uuidString)")
            .path
        // Debian's own interpreter sees Debian's python3-* packages; another python3 first on
        // PATH (pyenv, say) may not.
        let debian = "/usr/bin/python3"
        let (path, prefix) =
            debianPython && FileManager.default.isExecutableFile(atPath: debian)
            ? (debian, [String]()) : ("/usr/bin/env", ["python3"])
        let child = try ChildProcess(
            path, prefix + [script, mode] + arguments, output: files + ".out", errors: files + ".err", pipeInput: true)
        let lines = ChildOutputLines(child)
        guard let line = await offCooperativePool({ lines.next() }), let port = Int(line) else {
            child.stop(grace: 0)
            let errors = (try? String(contentsOfFile: files + ".err", encoding: .utf8)) ?? ""
            Self.remove(files)
            throw StreamTaskError(.connectionFailed, "the Python peer did not report its port: \(errors)")
        }
        return PythonPeer(child: child, lines: lines, errors: files, port: port)
    }

    /// Removes the peer's output files.
    private static func remove(_ files: String) {
        try? FileManager.default.removeItem(atPath: files + ".out")
        try? FileManager.default.removeItem(atPath: files + ".err")
    }

    /// The peer's next line of output, or `nil` when it has exited.
    func readLine() async -> String? {
        await offCooperativePool { self.lines.next() }
    }

    /// Closes the peer's standard input without waiting: the cue some modes wait for.
    func closeInput() {
        child.closeInput()
    }

    /// Closes the peer's standard input and waits (at most 30 s) for it to exit; returns its
    /// remaining output lines.
    func finish() async -> [String] {
        await offCooperativePool {
            self.child.closeInput()
            let deadline = Date().addingTimeInterval(30)
            while self.child.isRunning() && Date() < deadline { usleep(5_000) }
            return self.lines.rest()
        }
    }

    deinit {
        // SIGKILL at once: some peers (openssl s_server) ignore SIGTERM.
        child.stop(grace: 0)
        Self.remove(errors)
    }
}

/// Collects values from callbacks on other threads.
final class Recorder<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Value]>([])
    func append(_ value: Value) { box.withLockedValue { $0.append(value) } }
    var values: [Value] { box.withLockedValue { $0 } }
}
