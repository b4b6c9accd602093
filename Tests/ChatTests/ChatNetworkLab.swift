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

/// Test hosts for an IRC network, each in a network namespace of its own, made for one test
/// and always removed:
///
/// ```
///            LAN 198.19.L.0/24 (a bridge in namespace stkn-PID-lan)
///   ┌──────────────┬──────────────┬──────────────┬──────────────┐
///   root .1        hub .10        one .11        two .12        cli .13
///   (the test)     │              │              │              (irssi, chat-client)
///                  ├── 198.19.K.1/30 ─ .2/30 ───┘ │
///                  └── 198.19.K.5/30 ─ .6/30 ──────┘   server links, one veth each
/// ```
///
/// Clients reach every server over the LAN; servers link over links of their own, so taking
/// a server link down (``setLink(_:up:)``) splits the network without cutting the clients
/// off. Addresses are from 198.19.0.0/16, the half of RFC 2544's benchmarking range that the
/// route tests leave alone, checked unused on this machine first; traffic goes only to these namespaces. Names carry the prefix `stkn`
/// and the test process's PID, so leftovers of a killed run are recognized and removed.
final class ChatNetworkLab: Sendable {
    /// A server host of the lab.
    enum Host: String, CaseIterable, Sendable {
        case hub, one, two, cli

        /// The last byte of the host's LAN address.
        var lanByte: Int {
            switch self {
            case .hub: 10
            case .one: 11
            case .two: 12
            case .cli: 13
            }
        }
    }

    /// Delay, loss and reordering on the server links, as `tc netem` would add them. This
    /// machine's kernel has no netem, so the links are then two TUN devices joined by a
    /// program that impairs what crosses it (Lab/impaired_link.py).
    struct Impairment: Sendable {
        var delayMilliseconds = 100
        var jitterMilliseconds = 20
        var loss = 0.02
        var reorder = 0.25
    }

    static let prefix = "stkn"
    let pid: Int32
    let lan: Int
    let links: Int
    let impairment: Impairment?
    /// The programs that carry impaired links, stopped with the lab.
    private let impairers = NIOLockedValueBox<[ObservedProcess]>([])

    /// The namespace of `host`.
    func namespace(_ host: Host) -> String { "\(Self.prefix)-\(pid)-\(host.rawValue)" }
    private var lanNamespace: String { "\(Self.prefix)-\(pid)-lan" }
    /// The address of `host` on the LAN.
    func address(_ host: Host) -> String { "198.19.\(lan).\(host.lanByte)" }
    /// The hub's address on the link to `server` (one or two).
    func hubAddress(toward server: Host) -> String { "198.19.\(links).\(server == .one ? 1 : 5)" }
    /// The address of `server` (one or two) on its link to the hub.
    func linkAddress(_ server: Host) -> String { "198.19.\(links).\(server == .one ? 2 : 6)" }
    /// The hub's end of the link to `server`.
    private func hubInterface(toward server: Host) -> String { "\(Self.prefix)\(pid)\(server == .one ? "x" : "y")" }

    private init(pid: Int32, lan: Int, links: Int, impairment: Impairment?) {
        self.pid = pid
        self.lan = lan
        self.links = links
        self.impairment = impairment
    }

    /// Builds the lab (one lab of namespaces at a time in this process, route labs included),
    /// its server links impaired when
    /// `impairment` is given.
    static func create(impairment: Impairment? = nil) async throws -> ChatNetworkLab {
        await LabGate.shared.enter()
        await removeLeftovers()
        let pid = getpid()
        do {
            let lan = try await unusedSubnet(startingAt: Int(pid % 200), avoiding: [])
            let links = try await unusedSubnet(startingAt: lan + 1, avoiding: [lan])
            let lab = ChatNetworkLab(pid: pid, lan: lan, links: links, impairment: impairment)
            do {
                try await lab.build()
            } catch {
                await lab.tearDown()
                throw error
            }
            return lab
        } catch {
            await LabGate.shared.leave()
            throw error
        }
    }

    private func build() async throws {
        let bridgeNS = lanNamespace
        var steps: [[String]] = [
            ["ip", "netns", "add", bridgeNS],
            ["ip", "-n", bridgeNS, "link", "add", "br0", "type", "bridge"],
            ["ip", "-n", bridgeNS, "link", "set", "br0", "up"],
        ]
        for host in Host.allCases {
            let namespace = namespace(host)
            let end = "\(Self.prefix)\(pid)\(host.rawValue.prefix(1))"
            steps += [
                ["ip", "netns", "add", namespace],
                ["ip", "-n", namespace, "link", "set", "lo", "up"],
                ["ip", "link", "add", end, "type", "veth", "peer", "name", end + "p"],
                ["ip", "link", "set", end, "netns", namespace],
                ["ip", "link", "set", end + "p", "netns", bridgeNS],
                ["ip", "-n", bridgeNS, "link", "set", end + "p", "master", "br0", "up"],
                ["ip", "-n", namespace, "addr", "add", "\(address(host))/24", "dev", end],
                ["ip", "-n", namespace, "link", "set", end, "up"],
            ]
        }
        // The test process's own door to the LAN.
        let door = "\(Self.prefix)\(pid)r"
        steps += [
            ["ip", "link", "add", door, "type", "veth", "peer", "name", door + "p"],
            ["ip", "link", "set", door + "p", "netns", bridgeNS],
            ["ip", "-n", bridgeNS, "link", "set", door + "p", "master", "br0", "up"],
            ["ip", "addr", "add", "198.19.\(lan).1/24", "dev", door],
            ["ip", "link", "set", door, "up"],
        ]
        for step in steps { try await Self.mustRun(step) }
        for server in [Host.one, .two] { try await buildLink(to: server) }
    }

    /// The link between the hub and `server`: a veth pair, or two TUN devices and the program
    /// that impairs what crosses between them.
    private func buildLink(to server: Host) async throws {
        let hubEnd = hubInterface(toward: server)
        let serverEnd = hubEnd + "s"
        let (hub, far) = (hubAddress(toward: server), linkAddress(server))
        var steps: [[String]] = []
        if let impairment {
            guard let python = programPath("python3") else {
                throw RouteLab.LabError(message: "python3 is not on PATH")
            }
            let carrier = try ObservedProcess(
                python,
                [
                    "-u", Self.impairedLinkScript, hubEnd, serverEnd, "\(impairment.delayMilliseconds)",
                    "\(impairment.jitterMilliseconds)", "\(impairment.loss)", "\(impairment.reorder)", "\(pid)",
                ], pipeInput: true)
            impairers.withLockedValue { $0.append(carrier) }
            guard await carrier.waitForOutput(containing: "ready") else {
                throw RouteLab.LabError(message: "the impaired link did not start: \(carrier.output)")
            }
        } else {
            steps.append(["ip", "link", "add", hubEnd, "type", "veth", "peer", "name", serverEnd])
        }
        // A TUN device is point to point (`peer`); a veth pair shares a /30.
        let hubAddress = impairment == nil ? ["\(hub)/30"] : [hub, "peer", far]
        let farAddress = impairment == nil ? ["\(far)/30"] : [far, "peer", hub]
        steps += [
            ["ip", "link", "set", hubEnd, "netns", namespace(.hub)],
            ["ip", "link", "set", serverEnd, "netns", namespace(server)],
            ["ip", "-n", namespace(.hub), "addr", "add"] + hubAddress + ["dev", hubEnd],
            ["ip", "-n", namespace(server), "addr", "add"] + farAddress + ["dev", serverEnd],
            ["ip", "-n", namespace(.hub), "link", "set", hubEnd, "up"],
            ["ip", "-n", namespace(server), "link", "set", serverEnd, "up"],
        ]
        for step in steps { try await Self.mustRun(step) }
    }

    /// The program that carries an impaired link.
    static let impairedLinkScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Lab/impaired_link.py").path

    /// Removes every namespace (and with them their links) and the test's door.
    func remove() async {
        await tearDown()
        await LabGate.shared.leave()
    }

    private func tearDown() async {
        for carrier in impairers.withLockedValue({ $0 }) { await carrier.stop() }
        for host in Host.allCases { _ = await RouteLab.run(["ip", "netns", "del", namespace(host)]) }
        _ = await RouteLab.run(["ip", "netns", "del", lanNamespace])
        _ = await RouteLab.run(["ip", "link", "del", "\(Self.prefix)\(pid)r"])
    }

    /// The command line that runs `arguments` on `host`.
    func on(_ host: Host, _ arguments: [String]) -> [String] {
        ["ip", "netns", "exec", namespace(host)] + arguments
    }

    /// Starts `arguments` on `host`, its output observed.
    func start(on host: Host, _ arguments: [String], pipeInput: Bool = false) throws -> ObservedProcess {
        guard let ip = programPath("ip") else { throw RouteLab.LabError(message: "ip is not on PATH") }
        return try ObservedProcess(ip, ["netns", "exec", namespace(host)] + arguments, pipeInput: pipeInput)
    }

    /// Takes the link between the hub and `server` down, or brings it up again: the hub's end.
    func setLink(_ server: Host, up: Bool) async throws {
        try await Self.mustRun([
            "ip", "-n", namespace(.hub), "link", "set", hubInterface(toward: server), up ? "up" : "down",
        ])
    }

    // MARK: Helpers

    static func mustRun(_ arguments: [String]) async throws {
        let result = await RouteLab.run(arguments)
        guard result.status == 0 else {
            throw RouteLab.LabError(
                message: "`\(arguments.joined(separator: " "))` failed (\(result.status)): \(result.output)")
        }
    }

    /// Removes namespaces and links of earlier runs whose process is gone.
    private static func removeLeftovers() async {
        let namespaces = await RouteLab.run(["ip", "netns", "list"]).output
        for name in namespaces.split(separator: "\n").compactMap({ $0.split(separator: " ").first.map(String.init) }) {
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == prefix, let pid = Int32(parts[1]), !isAlive(pid) else { continue }
            _ = await RouteLab.run(["ip", "netns", "del", name])
        }
        let links = await RouteLab.run(["ip", "-o", "link", "show"]).output
        for line in links.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 1 else { continue }
            let name = String(fields[1].prefix { $0 != "@" && $0 != ":" })
            guard name.hasPrefix(prefix), name.hasSuffix("r"), let pid = Int32(name.dropFirst(prefix.count).dropLast()),
                !isAlive(pid)
            else { continue }
            _ = await RouteLab.run(["ip", "link", "del", name])
        }
    }

    private static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// A /24 in 198.19.0.0/16 that no interface or route here uses.
    private static func unusedSubnet(startingAt start: Int, avoiding taken: Set<Int>) async throws -> Int {
        let addresses = await RouteLab.run(["ip", "-4", "-o", "addr", "show"]).output
        let routes = await RouteLab.run(["ip", "-4", "route", "show", "table", "all"]).output
        for offset in 0..<256 {
            let subnet = (start + offset) % 256
            let net = "198.19.\(subnet)."
            if !taken.contains(subnet), !addresses.contains(net), !routes.contains(net) { return subnet }
        }
        throw RouteLab.LabError(message: "no unused /24 in 198.19.0.0/16")
    }
}
