//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Two links between this (the root) network namespace and a server namespace, made for one
/// test run and always removed:
///
/// ```
///   root namespace (the test process, the route monitor)        namespace stkr-PID
///   stkrPIDa 198.18.K.1/30  ── veth ──  198.18.K.2/30 stkrPIDpa
///   stkrPIDb 198.18.K.5/30  ── veth ──  198.18.K.6/30 stkrPIDpb     lo: 198.18.K.9/32, the server
/// ```
///
/// The server address is reachable over either link; at first only a route over link b (the
/// "worse" one) exists. Addresses are from 198.18.0.0/15 (RFC 2544's benchmarking range),
/// checked unused on this machine first; traffic goes only to these namespaces. Every name
/// carries the prefix `stkr` and the test process's PID, so leftovers of a run that was killed
/// are recognized (their PID is gone) and removed by the next run.
public final class RouteLab: Sendable {
    public static let prefix = "stkr"
    /// The server's port, inside our own namespace and on our own address: no one else's.
    public static let port = 7007

    public let namespace: String
    public let linkA: String
    public let linkB: String
    public let subnet: Int
    private let server: LabProcess

    public var serverAddress: String { "198.18.\(subnet).9" }
    public var clientA: String { "198.18.\(subnet).1" }
    public var clientB: String { "198.18.\(subnet).5" }

    private init(namespace: String, linkA: String, linkB: String, subnet: Int, server: LabProcess) {
        self.namespace = namespace
        self.linkA = linkA
        self.linkB = linkB
        self.subnet = subnet
        self.server = server
    }

    // MARK: Can it run here?

    /// Nil when the lab can be built here; otherwise why not. In CI (`CI=true`) the tests run
    /// regardless, and fail if the lab cannot be built.
    public static func unavailableReason() async -> String? {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return nil }
        guard geteuid() == 0 else { return "not running as root (euid \(geteuid()))" }
        let probe = await run(["ip", "netns", "list"])
        guard probe.status == 0 else { return "`ip netns list` failed (\(probe.status)): \(probe.output)" }
        let python = await run(["python3", "-c", "pass"])
        guard python.status == 0 else {
            return "python3 (the test server) did not run (\(python.status)): \(python.output)"
        }
        return nil
    }

    /// Whether the namespace tests run; says so loudly on standard error (once) when they do not.
    public static func isAvailable() async -> Bool {
        await availability.value
    }

    private static let availability = Task<Bool, Never> {
        guard let reason = await unavailableReason() else { return true }
        try? FileHandle.standardError.write(
            contentsOf: Data(
                "SKIPPED: route namespace tests need root and iproute2's `ip netns`: \(reason). They did NOT run; run as root (CI=true makes them mandatory).\n"
                    .utf8))
        return false
    }

    // MARK: Building and removing

    /// Builds the lab. The server in the namespace is `server(address, port)` (a command
    /// line), ready once its output contains `readyMarker`; by default a Python echo server.
    public static func create(
        server command: (@Sendable (String, Int) -> [String])? = nil,
        readyMarker: String = "ready"
    ) async throws -> RouteLab {
        // One lab at a time in this process: its names carry only the PID.
        await LabGate.shared.enter()
        do {
            return try await build(command: command, readyMarker: readyMarker)
        } catch {
            await LabGate.shared.leave()
            throw error
        }
    }

    private static func build(
        command: (@Sendable (String, Int) -> [String])?, readyMarker: String
    ) async throws -> RouteLab {
        await removeLeftovers()
        let pid = getpid()
        let namespace = "\(prefix)-\(pid)"
        let linkA = "\(prefix)\(pid)a"
        let linkB = "\(prefix)\(pid)b"
        let subnet = try await unusedSubnet(startingAt: Int(pid % 256))
        let net = "198.18.\(subnet)"
        let steps: [[String]] = [
            ["ip", "netns", "add", namespace],
            ["ip", "link", "add", linkA, "type", "veth", "peer", "name", linkA + "p"],
            ["ip", "link", "add", linkB, "type", "veth", "peer", "name", linkB + "p"],
            ["ip", "link", "set", linkA + "p", "netns", namespace],
            ["ip", "link", "set", linkB + "p", "netns", namespace],
            ["ip", "addr", "add", "\(net).1/30", "dev", linkA],
            ["ip", "addr", "add", "\(net).5/30", "dev", linkB],
            ["ip", "link", "set", linkA, "up"],
            ["ip", "link", "set", linkB, "up"],
            ["ip", "-n", namespace, "addr", "add", "\(net).2/30", "dev", linkA + "p"],
            ["ip", "-n", namespace, "addr", "add", "\(net).6/30", "dev", linkB + "p"],
            ["ip", "-n", namespace, "addr", "add", "\(net).9/32", "dev", "lo"],
            ["ip", "-n", namespace, "link", "set", "lo", "up"],
            ["ip", "-n", namespace, "link", "set", linkA + "p", "up"],
            ["ip", "-n", namespace, "link", "set", linkB + "p", "up"],
            // The worse route, the only one at first: over link b.
            ["ip", "route", "add", "\(net).9/32", "via", "\(net).6", "dev", linkB, "metric", "300"],
        ]
        do {
            for step in steps { try await mustRun(step) }
            let serverCommand =
                command?("\(net).9", port) ?? ["python3", "-u", "-c", echoServer, "\(net).9", "\(port)"]
            let server = try await LabProcess.start(
                ["ip", "netns", "exec", namespace] + serverCommand, readyMarker: readyMarker)
            return RouteLab(namespace: namespace, linkA: linkA, linkB: linkB, subnet: subnet, server: server)
        } catch {
            await remove(namespace: namespace, links: [linkA, linkB])
            throw error
        }
    }

    /// Stops the server and removes the namespace, the links and (with them) every route.
    public func remove() async {
        await server.kill()
        await Self.remove(namespace: namespace, links: [linkA, linkB])
        await LabGate.shared.leave()
    }

    private static func remove(namespace: String, links: [String]) async {
        // Deleting the namespace deletes the veth ends in it, hence their peers and the routes
        // over them; deleting the links too covers a half-built lab.
        _ = await run(["ip", "netns", "del", namespace])
        for link in links { _ = await run(["ip", "link", "del", link]) }
    }

    /// Removes namespaces and links of earlier runs whose process is gone.
    static func removeLeftovers() async {
        let namespaces = await run(["ip", "netns", "list"]).output
        let links = await run(["ip", "-o", "link", "show"]).output
        for name in namespaces.split(separator: "\n").compactMap({ $0.split(separator: " ").first.map(String.init) }) {
            if let pid = ownerPID(of: name, suffixLength: 0, separator: "-"), !isAlive(pid) {
                await remove(namespace: name, links: [])
            }
        }
        for line in links.split(separator: "\n") {
            // "12: stkr123a@if11: <...>"
            let fields = line.split(separator: " ")
            guard fields.count > 1 else { continue }
            let name = String(fields[1].prefix { $0 != "@" && $0 != ":" })
            if let pid = ownerPID(of: name, suffixLength: 1, separator: nil), !isAlive(pid) {
                _ = await run(["ip", "link", "del", name])
            }
        }
    }

    private static func ownerPID(of name: String, suffixLength: Int, separator: Character?) -> pid_t? {
        guard name.hasPrefix(prefix) else { return nil }
        var rest = name.dropFirst(prefix.count)
        if let separator {
            guard rest.first == separator else { return nil }
            rest = rest.dropFirst()
        }
        guard rest.count > suffixLength else { return nil }
        return pid_t(rest.dropLast(suffixLength))
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// A /24 in 198.18.0.0/16 that no interface here has an address in, and no route names.
    private static func unusedSubnet(startingAt start: Int) async throws -> Int {
        let addresses = await run(["ip", "-4", "-o", "addr", "show"]).output
        let routes = await run(["ip", "-4", "route", "show", "table", "all"]).output
        for offset in 0..<256 {
            let subnet = (start + offset) % 256
            let net = "198.18.\(subnet)."
            if !addresses.contains(net), !routes.contains(net) { return subnet }
        }
        throw LabError(message: "no unused /24 in 198.18.0.0/16")
    }

    // MARK: Changes the test makes

    /// The better route: a lower metric over link a.
    public func addBetterRoute() async throws {
        try await Self.mustRun([
            "ip", "route", "add", "\(serverAddress)/32", "via", "198.18.\(subnet).2", "dev", linkA, "metric", "100",
        ])
    }

    public func setLinkB(up: Bool) async throws {
        try await Self.mustRun(["ip", "link", "set", linkB, up ? "up" : "down"])
    }

    // MARK: Running commands (off the cooperative pool)

    /// A step of building or changing a lab failed.
    public struct LabError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    static func mustRun(_ arguments: [String]) async throws {
        let result = await run(arguments)
        guard result.status == 0 else {
            throw LabError(message: "`\(arguments.joined(separator: " "))` failed (\(result.status)): \(result.output)")
        }
    }

    /// Runs a command to completion (30 s at most) on a thread of its own; its exit code and
    /// its output (standard output and error together). `ChildProcess`, not Foundation's
    /// `Process`: see why beside it.
    public static func run(_ arguments: [String]) async -> (status: Int32, output: String) {
        await offCooperativePool {
            let log = FileManager.default.temporaryDirectory
                .appendingPathComponent("\(prefix)-\(getpid())-\(UUID().uuidString).out").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let child: ChildProcess
            do {
                child = try ChildProcess(try executable(arguments[0]), Array(arguments.dropFirst()), output: log)
            } catch {
                return (-1, "\(error)")
            }
            let deadline = Date().addingTimeInterval(30)
            while child.isRunning(), Date() < deadline { usleep(2_000) }
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            guard !child.isRunning() else {
                child.stop(grace: 0)
                return (-1, "timed out after 30 s: \(output)")
            }
            return (child.exitCode ?? -1, output)
        }
    }

    /// The full path of a command found on PATH (posix_spawn does not search).
    static func executable(_ name: String) throws -> String {
        if let path = programPath(name) { return path }
        throw LabError(message: "\(name) is not on PATH (install iproute2 and python3: scripts/install-deps.sh)")
    }

    /// An echo server (Python's socketserver): prints "ready" once listening, serves each
    /// connection on a thread of its own.
    static let echoServer = """
        import socketserver, sys
        class Echo(socketserver.BaseRequestHandler):
            def handle(self):
                while data := self.request.recv(4096):
                    self.request.sendall(data)
        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True
            def server_activate(self):
                super().server_activate()
                print("ready", flush=True)
        Server((sys.argv[1], int(sys.argv[2])), Echo).serve_forever()
        """
}

/// The server: a child process that prints "ready" once listening; killed with SIGKILL.
final class LabProcess: Sendable {
    private let child: ChildProcess
    private let log: String

    private init(child: ChildProcess, log: String) {
        self.child = child
        self.log = log
    }

    static func start(_ arguments: [String], readyMarker: String) async throws -> LabProcess {
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(RouteLab.prefix)-\(getpid())-server.out").path
        let server = LabProcess(
            child: try ChildProcess(try RouteLab.executable(arguments[0]), Array(arguments.dropFirst()), output: log),
            log: log)
        // No event to await from another process: poll its output (bounded).
        let ready = await eventually(20) { server.output.contains(readyMarker) || !server.child.isRunning() }
        guard ready, server.child.isRunning() else {
            let output = server.output
            await server.kill()
            throw RouteLab.LabError(message: "the server did not start: \(output)")
        }
        return server
    }

    private var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func kill() async {
        await offCooperativePool { self.child.stop(grace: 0) }
        try? FileManager.default.removeItem(atPath: log)
    }
}

/// Lets one lab of network namespaces (a ``RouteLab``, or another test's) exist at a time in
/// this process; the others wait their turn.
public actor LabGate {
    public static let shared = LabGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
