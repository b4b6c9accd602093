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
import Testing

@testable import StreamTaskCore

#if canImport(Glibc)
import Glibc
#endif

/// Why a proxy for the tests could not be started; the message says how to fix it.
struct ProxySetupError: Error, CustomStringConvertible {
    let description: String
    /// The proxy exited before it was ready, probably because another process took its port.
    var portTaken = false
}

/// A real proxy (tinyproxy or dante) run by a test as a child process, listening on 127.0.0.1
/// on a free port, with a generated configuration. Stopped by its PID.
final class ProxyProcess: @unchecked Sendable {
    // @unchecked Sendable: used by one test at a time; `child` is only started and stopped.
    let port: Int
    private let name: String
    private let child: ChildProcess
    private let directory: URL

    /// The system user and password that dante checks `socksmethod: username` against;
    /// scripts/proxy-test-user.sh creates it.
    static let socksUser = ProxyCredentials(username: "stkproxytest", password: "stk-proxy-test")

    private init(name: String, port: Int, child: ChildProcess, directory: URL) {
        self.name = name
        self.port = port
        self.child = child
        self.directory = directory
    }

    /// tinyproxy as an HTTP CONNECT proxy; with `credentials`, it demands Basic authentication.
    static func tinyproxy(credentials: ProxyCredentials? = nil) async throws -> ProxyProcess {
        let binary = try locate("tinyproxy", package: "tinyproxy-bin")
        return try await start(name: "tinyproxy", binary: binary) { port, directory in
            var lines = [
                "Port \(port)",
                "Listen 127.0.0.1",
                "Timeout 30",
                "MaxClients 50",
                "LogLevel Info",
                "LogFile \"\(directory.appendingPathComponent("proxy.log").path)\"",
            ]
            if let credentials { lines.append("BasicAuth \(credentials.username) \(credentials.password)") }
            // No ConnectPort line: CONNECT is allowed to every port (the targets' are random).
            return (lines.joined(separator: "\n") + "\n", ["-d", "-c"])
        }
    }

    /// dante (`danted`) as a SOCKS5 proxy; with `authenticate`, it demands a username and
    /// password, checked against the system user ``socksUser``.
    static func dante(authenticate: Bool = false) async throws -> ProxyProcess {
        let binary = try locate("danted", package: "dante-server")
        let isRoot = geteuid() == 0
        if authenticate {
            guard isRoot, getpwnam(socksUser.username) != nil else {
                throw ProxySetupError(
                    description: "dante checks SOCKS5 passwords against system users: run the tests as root "
                        + "after scripts/proxy-test-user.sh has created the user \(socksUser.username) "
                        + "(bash scripts/test.sh does both)"
                )
            }
        }
        return try await start(name: "danted", binary: binary) { port, directory in
            var lines = [
                "logoutput: \(directory.appendingPathComponent("proxy.log").path)",
                "internal: 127.0.0.1 port = \(port)",
                // Outgoing connections from the loopback interface's addresses (127.0.0.1, ::1).
                "external: lo",
                "clientmethod: none",
                "socksmethod: \(authenticate ? "username" : "none")",
            ]
            if isRoot {
                // Settings come before the rules.
                lines += ["user.privileged: root", "user.unprivileged: nobody"]
            }
            lines += [
                "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
                "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 command: connect }",
            ]
            return (lines.joined(separator: "\n") + "\n", ["-N", "1", "-f"])
        }
    }

    /// Starts the proxy on a free port; tries another port if that one was taken meanwhile.
    private static func start(
        name: String,
        binary: String,
        configure: (Int, URL) -> (config: String, arguments: [String])
    ) async throws -> ProxyProcess {
        var attempt = 1
        while true {
            do {
                return try await start(name: name, binary: binary, port: try unusedPort(), configure: configure)
            } catch let error as ProxySetupError where error.portTaken && attempt < 3 {
                attempt += 1
            }
        }
    }

    /// Writes the configuration, starts `binary ARGS… CONFIG`, and waits (at most 15 s) until
    /// the port accepts connections.
    private static func start(
        name: String,
        binary: String,
        port: Int,
        configure: (Int, URL) -> (config: String, arguments: [String])
    ) async throws -> ProxyProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stk-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (config, arguments) = configure(port, directory)
        let configFile = directory.appendingPathComponent("proxy.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess(
            binary,
            arguments + [configFile.path],
            output: directory.appendingPathComponent("output.txt").path
        )
        let proxy = ProxyProcess(name: name, port: port, child: child, directory: directory)
        let ready = await offCooperativePool { () -> Bool in
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline && child.isRunning() {
                if canConnectToLoopback(port: port) { return true }
                usleep(20_000)
            }
            return false
        }
        // Still running: the listener that answered is the proxy's, not another test's.
        guard ready, child.isRunning() else {
            // It exited: most likely it could not bind the port, which a moment ago was free.
            let exited = !child.isRunning()
            let details = proxy.diagnostics()
            await proxy.stop()
            throw ProxySetupError(
                description: "\(name) did not start listening on 127.0.0.1:\(port); its output: \(details)",
                portTaken: exited
            )
        }
        return proxy
    }

    /// Runs `body` with a proxy from `start`, and stops the proxy afterwards, even when `body`
    /// throws.
    static func with<T>(
        _ start: () async throws -> ProxyProcess,
        _ body: (ProxyProcess) async throws -> T
    ) async throws -> T {
        let proxy = try await start()
        do {
            let result = try await body(proxy)
            await proxy.stop()
            return result
        } catch {
            await proxy.stop()
            throw error
        }
    }

    /// What the proxy wrote, for failure messages.
    func diagnostics() -> String {
        let files = ["output.txt", "proxy.log"].map { directory.appendingPathComponent($0) }
        return files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
            .split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    /// Stops the proxy and its children, then removes its files.
    func stop() async {
        let child = self.child
        await offCooperativePool { child.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        child.stop(grace: 0)
    }

    /// The path of `command`, or an error that says which Debian package provides it.
    private static func locate(_ command: String, package: String) throws -> String {
        if let path = programPath(command) { return path }
        throw ProxySetupError(
            description: "\(command) is not installed, and the proxy tests need it: run scripts/install-deps.sh "
                + "(or apt-get install \(package)); scripts/test.sh does this for you"
        )
    }

    /// A port on 127.0.0.1 that is free now, from ``TestPortRange``.
    private static func unusedPort() throws -> Int {
        let socket = try ClosedPort()
        socket.release()
        return socket.port
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds now.
}

/// A server-speaks-first target: on accept it sends `greeting` at once, then echoes every line,
/// and when the client ends its side it answers `bye after N bytes\n` and ends its own, which
/// only arrives if half-close works end to end.
struct GreetingServer {
    static let greeting = "220 greeting sent on accept\r\n"

    let server: LoopbackServer
    private let serving: Task<Void, Never>

    var port: Int { server.port }

    static func start(host: String = "127.0.0.1") async throws -> GreetingServer {
        let listener = try await TestPortRange.listener(
            host: host, session: StreamSession(configuration: .init(proxy: .direct)))
        let server = LoopbackServer(listener: listener, port: try #require(listener.port))
        let serving = Task {
            await withDiscardingTaskGroup { group in
                for await connection in listener.connections {
                    group.addTask { await serve(connection) }
                }
            }
        }
        return GreetingServer(server: server, serving: serving)
    }

    private static func serve(_ connection: StreamTask) async {
        do {
            try await connection.write(greeting)
            var count = 0
            while let line = try await connection.readData(
                upToAndIncluding: Data("\n".utf8), maxLength: 4096, timeout: 10)
            {
                count += line.count
                try await connection.write(line, timeout: 10)
            }
            try await connection.write("bye after \(count) bytes\n")
            connection.closeWrite()
        } catch {
            connection.cancel()
        }
    }

    func stop() async {
        await server.stop()
        await serving.value
    }
}

extension StreamSession {
    /// A session whose tasks go through `proxy`.
    convenience init(proxy: ProxyConfiguration, handshakeTimeout: TimeInterval = 10) {
        var proxy = proxy
        proxy.handshakeTimeout = handshakeTimeout
        self.init(configuration: StreamSession.Configuration(timeoutIntervalForRequest: 20, proxy: proxy))
    }
}

extension StreamTask {
    /// The whole conversation with a ``GreetingServer``: greeting, one echoed line, then
    /// half-close and the server's goodbye.
    func converseWithGreetingServer(halfClose: Bool = true) async throws {
        #expect(try await readText(count: GreetingServer.greeting.utf8.count) == GreetingServer.greeting)
        try await write("ping\n")
        #expect(try await readText(count: 5) == "ping\n")
        guard halfClose else { return }
        closeWrite()
        #expect(try await readToEnd() == "bye after 5 bytes\n")
    }
}

/// Connects through `proxy` to a port on 127.0.0.1 that refuses connections; returns the
/// error, expected to have `code`, and that port.
func connectToAClosedPort(
    through proxy: ProxyConfiguration,
    expecting code: StreamTaskError.Code,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (error: StreamTaskError?, port: Int) {
    let closed = try ClosedPort()
    let task = StreamSession(proxy: proxy).loopbackTask(port: closed.port)
    let error = await expectStreamError(code, sourceLocation: sourceLocation) { try await task.write("x") }
    #expect(await task.waitUntilCompleted()?.code == code, sourceLocation: sourceLocation)
    closed.release()
    return (error, closed.port)
}

/// A CONNECT "proxy" made of our own listener, for what real proxies will not do.
final class FakeConnectProxy: Sendable {
    enum Behavior: Sendable {
        /// Answers `200` and then one header that never ends.
        case endlessHeader
        /// Answers something that is not HTTP.
        case garbage
        /// Reads the request and never answers.
        case silent
        /// Opens the tunnel and relays both directions, passing each end of stream on; the
        /// reply and the target's first bytes go out in one write.
        case relay
    }

    let server: LoopbackServer
    private let serving: Task<Void, Never>
    /// What happened to each connection, for the tests to check ("closed by client", …).
    let events: Recorder<String>

    var port: Int { server.port }

    private init(server: LoopbackServer, serving: Task<Void, Never>, events: Recorder<String>) {
        self.server = server
        self.serving = serving
        self.events = events
    }

    static func start(_ behavior: Behavior) async throws -> FakeConnectProxy {
        let session = StreamSession(configuration: .init(proxy: .direct))
        let listener = try await TestPortRange.listener(session: session)
        let server = LoopbackServer(listener: listener, port: try #require(listener.port))
        let events = Recorder<String>()
        let serving = Task {
            await withDiscardingTaskGroup { group in
                for await connection in server.listener.connections {
                    group.addTask { await serve(connection, behavior, session: session, events: events) }
                }
            }
        }
        return FakeConnectProxy(server: server, serving: serving, events: events)
    }

    private static func serve(
        _ client: StreamTask,
        _ behavior: Behavior,
        session: StreamSession,
        events: Recorder<String>
    ) async {
        do {
            guard
                let head = try await client.readData(
                    upToAndIncluding: Data("\r\n\r\n".utf8), maxLength: 4096, timeout: 10)
            else { return }
            events.append("request")
            switch behavior {
            case .endlessHeader:
                try await client.write("HTTP/1.1 200 Connection established\r\nX-Endless: ")
                let chunk = Data(repeating: UInt8(ascii: "a"), count: 4096)
                for _ in 0..<2560 {  // at most 10 MiB; the client gives up long before
                    try await client.write(chunk, timeout: 10)
                }
                events.append("sent 10 MiB")
            case .garbage:
                try await client.write("SSH-2.0-OpenSSH_9.2\r\n")
                _ = try await client.readToEnd()
                events.append("closed by client")
            case .silent:
                _ = try await client.readToEnd()
                events.append("closed by client")
            case .relay:
                try await relay(client, request: String(decoding: head, as: UTF8.self), session: session)
                events.append("relayed")
            }
        } catch {
            events.append("error: \(error)")
        }
        client.cancel()
    }

    private static func relay(_ client: StreamTask, request: String, session: StreamSession) async throws {
        let authority = request.split(separator: " ")[1]
        let colon = try #require(authority.lastIndex(of: ":"))
        var host = String(authority[..<colon])
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        let port = try #require(Int(authority[authority.index(after: colon)...]))
        let target = session.streamTask(withHostName: host, port: port)
        target.resume()
        let (first, _) = try await target.readData(ofMinLength: 1, maxLength: 65536, timeout: 10)
        try await client.write(
            Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8) + (first ?? Data()), timeout: 10)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pump(from: client, to: target) }
            group.addTask { try await pump(from: target, to: client) }
            try await group.waitForAll()
        }
        target.cancel()
    }

    /// Copies bytes until end of stream, then ends the other side's stream too.
    private static func pump(from source: StreamTask, to sink: StreamTask) async throws {
        while true {
            let (data, atEOF) = try await source.readData(ofMinLength: 1, maxLength: 65536, timeout: 10)
            if let data, !data.isEmpty { try await sink.write(data, timeout: 10) }
            if atEOF { break }
        }
        sink.closeWrite()
    }

    /// Starts a fake with `behavior` and sends a task to port 7 through it; returns the fake
    /// (still running) and the task's error, expected to have `code`.
    static func failure(
        _ behavior: Behavior,
        expecting code: StreamTaskError.Code,
        handshakeTimeout: TimeInterval = 10,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (proxy: FakeConnectProxy, task: StreamTask, error: StreamTaskError?) {
        let proxy = try await start(behavior)
        let configuration = ProxyConfiguration.httpConnect(host: "127.0.0.1", port: proxy.port)
        let task = StreamSession(proxy: configuration, handshakeTimeout: handshakeTimeout).loopbackTask(port: 7)
        let error = await expectStreamError(code, sourceLocation: sourceLocation) { try await task.write("x") }
        return (proxy, task, error)
    }

    func stop() async {
        await server.stop()
        await serving.value
    }
}
