//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import ChatClientCore
import ChatProtocol
import ExampleSupport
import Foundation
import StreamTaskDNSSD
import StreamTaskKit

/// The chat client of Protocol.md. With no arguments it finds chat servers on the LAN through
/// DNS-SD, connects to the only one (or asks which), and upgrades with STARTTLS pinned to the
/// certificate fingerprint the server advertises.
@main
struct ChatClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-client",
        abstract: "An IRC chat client that finds chat servers on the LAN through DNS-SD.",
        discussion: """
            Without --host it browses for _irc._tcp services. Type /help once connected for the \
            commands. When standard input is not a terminal, each line read is one typed line, \
            so scripts can drive it.
            """
    )

    @Option(help: "Connect to this host instead of finding a server through DNS-SD.")
    var host: String?

    @Option(help: "The port (default 6667, or 6697 with --tls).")
    var port: Int?

    @Flag(help: "Use TLS from the first byte (usually port 6697).")
    var tls = false

    @Flag(help: "Upgrade with STARTTLS, and give up rather than go on in plaintext.")
    var starttls = false

    @Option(
        help:
            "Pin the server certificate to this SHA-256 (64 hex digits, colons allowed, after an optional sha256:) instead of checking its chain."
    )
    var fingerprint: String?

    @Flag(help: "Accept any server certificate (testing only).")
    var insecure = false

    @Option(
        help:
            "Connect through this proxy: http://host:port, https://… (TLS to the proxy), socks5://… (names resolved here) or socks5h://… (names resolved by the proxy), with user:password@ before the host when it asks for them. The environment's proxy variables apply otherwise."
    )
    var proxy: String?

    @Option(
        help: ArgumentHelp(
            "Take App Transport Security's settings from this file: an Info.plist, or its NSAppTransportSecurity dictionary as a property list or JSON.",
            discussion:
                "Without it, the client allows local networking (NSAllowsLocalNetworking) and applies ATS's rules to named hosts.",
            valueName: "file")
    )
    var transportSecurity: String?

    @Option(help: "Your nickname (default: your user name).")
    var nick: String?

    @Option(
        help:
            "A server password, sent as PASS (ZNC takes user/network:password). Other users of this machine can see command lines: the CHAT_PASSWORD environment variable is the safer way to give it."
    )
    var password: String?

    @Option(help: "A channel to join once connected; repeat for several.")
    var channel: [String] = []

    @Option(help: "Seconds to look for servers on the LAN.")
    var browseTime: Double = 3

    @Flag(help: "Do not reconnect when the connection drops.")
    var noReconnect = false

    func validate() throws {
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port must be between 1 and 65535 (got \(port))")
        }
        if tls && starttls {
            throw ValidationError("--tls and --starttls exclude each other")
        }
        if let fingerprint, ChatClientOptions.fingerprint(fromUserInput: fingerprint) == nil {
            throw ValidationError(
                "--fingerprint must be 64 hex digits, colons allowed, after an optional sha256: (got \(fingerprint))")
        }
        if host == nil && (port != nil || tls || starttls || proxy != nil) {
            throw ValidationError(
                "--port, --tls, --starttls and --proxy need --host (servers found on the LAN are reached directly)")
        }
    }

    func run() async throws {
        let ui: any ChatUserInterface =
            TerminalUserInterface.isAvailable ? TerminalUserInterface() : PlainUserInterface()
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { _ in
            ui.restore()
            Foundation.exit(130)
        }
        defer {
            signals.cancel()
            ui.restore()
        }
        // Until the client reads what is typed, Ctrl-C leaves at once, as the signal does.
        let terminal = ui as? TerminalUserInterface
        terminal?.setInterruptHandler {
            ui.restore()
            Foundation.exit(130)
        }
        let made = try await makeOptions(ui: ui)
        terminal?.setInterruptHandler(nil)
        guard var options = made else {
            ui.restore()
            throw ExitCode.failure
        }
        if let transportSecurity {
            do {
                options.transportSecurity = try StreamTransportSecurity(
                    contentsOf: URL(fileURLWithPath: transportSecurity))
            } catch {
                ui.restore()
                throw ValidationError(
                    "--transport-security \(transportSecurity): \(error.streamTaskError?.message ?? error.localizedDescription)"
                )
            }
        }
        options.password = (password ?? ProcessInfo.processInfo.environment["CHAT_PASSWORD"]).flatMap {
            $0.isEmpty ? nil : $0
        }
        let status = await ChatClient(options: options, ui: ui).run()
        ui.restore()
        if status != 0 { throw ExitCode(status) }
    }

    private func makeOptions(ui: any ChatUserInterface) async throws -> ChatClientOptions? {
        let nickname = nick ?? Self.defaultNick()
        let channels = channel.map { IRCName.channelName($0) }
        guard let host else {
            return try await discover(ui: ui, nick: nickname, channels: channels)
        }
        let security: ChatClientOptions.Security = tls ? .tls : starttls ? .startTLS : .none
        var options = ChatClientOptions(
            target: .host(host, port: port ?? (tls ? 6697 : 6667)), security: security, nick: nickname,
            channels: channels,
            proxy: try proxy.map(Self.proxyConfiguration) ?? .environment)
        options.pinnedCertificateSHA256 = fingerprint.flatMap(ChatClientOptions.fingerprint(fromUserInput:))
        options.acceptsAnyCertificate = insecure
        options.reconnects = !noReconnect
        return options
    }

    /// Browses, lists what it found, and picks the only server or asks which.
    private func discover(
        ui: any ChatUserInterface, nick: String, channels: [String]
    ) async throws -> ChatClientOptions? {
        ui.show("*** looking for chat servers on the LAN (DNS-SD, \(ChatServiceRecord.serviceType))…")
        let servers: [DiscoveredChatServer]
        do {
            servers = try await ChatServerDiscovery.find(for: browseTime)
        } catch {
            ui.showError("!!! \(Self.discoveryFailure(error))")
            return nil
        }
        guard !servers.isEmpty else {
            ui.showError("!!! no chat server found on the LAN; start one with `swift run chat-server`, or give --host")
            return nil
        }
        for (index, server) in servers.enumerated() {
            ui.show("*** \(index + 1). \(server.summary)")
        }
        var chosen = servers[0]
        if servers.count > 1 {
            ui.setPrompt("which server (1-\(servers.count))? ")
            if !ui.isTerminal { ui.show("*** which server (1-\(servers.count))?") }
            var iterator = ui.inputs.makeAsyncIterator()
            while true {
                guard case .line(let answer) = await iterator.next() else { return nil }
                if let number = Int(answer.trimmingCharacters(in: .whitespaces)), (1...servers.count).contains(number) {
                    chosen = servers[number - 1]
                    break
                }
                ui.showError("!!! type a number from 1 to \(servers.count)")
            }
        }
        var options = ChatClientOptions.discovered(chosen, nick: nick, channels: channels)
        options.reconnects = !noReconnect
        return options
    }

    /// One line on why looking for servers failed, in the user's terms, with what to do: with
    /// no daemon, the project's own way to start one (limited to this machine, as the demo's),
    /// not the system-wide one the library's message names.
    static func discoveryFailure(_ error: any Error) -> String {
        guard let error = error as? DNSSDError else {
            return "looking for servers failed: \(error); give one with --host"
        }
        if error.code == .serviceNotRunning {
            return "no DNS-SD daemon (avahi-daemon) is running to find servers with: give a server with --host, "
                + "or start the project's loopback-only one with `sudo scripts/start-services.sh`"
        }
        return "looking for servers failed: \(error.message); give one with --host"
    }

    /// `--proxy`'s URL as a proxy, or a usage error in the user's terms.
    static func proxyConfiguration(_ url: String) throws -> ProxyConfiguration {
        do {
            return try ProxyConfiguration(url: url)
        } catch {
            throw ValidationError("--proxy: \(error.streamTaskError?.message ?? "\(error)")")
        }
    }

    /// The user's login name if it is a valid nickname, else `guest`.
    static func defaultNick() -> String {
        let user = ProcessInfo.processInfo.environment["USER"] ?? ""
        return IRCName.isValidNickname(user) ? user : "guest"
    }

}
