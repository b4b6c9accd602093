//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import ChatProtocol
import ChatServerCore
import ExampleSupport
import Foundation
import Logging
import ServiceLifecycle
import StreamTaskDNSSD
import StreamTaskKit

/// The chat server of Protocol.md: a small IRC server that offers STARTTLS and advertises
/// itself over DNS-SD.
///
/// It prints `listening on HOST:PORT` once bound (the real port when `--port 0` asked for a free
/// one), so scripts can read the port from its first line of output.
@main
struct ChatServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-server",
        abstract: "An IRC-subset chat server (see Protocol.md) that advertises itself over DNS-SD."
    )

    @Option(help: "The address to listen on (0.0.0.0 or :: for every interface).")
    var host = "0.0.0.0"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 6667

    @Option(help: "The service and network name to advertise (default: StreamTaskKit chat on <host name>).")
    var name: String?

    @Option(help: "The server's own name, the source of its replies (default: the host name).")
    var serverName: String?

    @Flag(help: "Do not advertise the server over DNS-SD.")
    var noAdvertise = false

    @Option(help: "A PEM certificate (chain) for STARTTLS; needs --key.")
    var cert: String?

    @Option(help: "The PEM private key of --cert.")
    var key: String?

    @Option(
        help:
            "Where the self-signed certificate made on first run is kept (default: ~/.local/state/streamtaskkit-chat).")
    var stateDirectory: String?

    @Flag(help: "Offer no STARTTLS at all.")
    var noTLS = false

    @Option(help: "The most clients at once.")
    var maxClients = IRCLimits.defaultMaxClients

    @Option(help: "The most clients at once from one address (an IPv6 /64 counts as one); 0 for no limit.")
    var maxPerAddress = ChatServerConfiguration.defaultMaximumClientsPerAddress

    @Option(help: "A file whose lines are the message of the day.")
    var motdFile: String?

    @Flag(help: "Switch the flood limit off (for load tests and benchmarks only).")
    var noFloodLimit = false

    @Option(help: .hidden)
    var registrationTimeout: Double?

    @Option(help: .hidden)
    var idleTimeout: Double?

    @Option(help: .hidden)
    var pingTimeout: Double?

    @Option(help: .hidden)
    var linkRetryMaximum: Double?

    @Option(help: .hidden)
    var linkIdleTimeout: Double?

    @Option(help: .hidden)
    var linkPingTimeout: Double?

    @Option(
        name: .customLong("link"),
        help: ArgumentHelp(
            "A server to link with (repeatable): NAME=HOST:PORT connects out to it, NAME alone accepts its link.",
            valueName: "name[=host:port]"))
    var links: [String] = []

    @Option(help: "The password both sides of every --link give (ngIRCd's MyPassword and PeerPassword).")
    var linkPassword: String?

    @Option(help: "A file of ngIRCd-style [Server] blocks, one per server to link with (see Protocol.md, section 11).")
    var linkConfig: String?

    @Option(help: "A second port that speaks TLS from the first byte, for clients and for linking servers.")
    var tlsPort: Int?

    @Flag(name: .shortAndLong, help: "Log every connection and drop.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535 (got \(port))")
        }
        guard maxClients >= 1 else {
            throw ValidationError("--max-clients must be at least 1 (got \(maxClients))")
        }
        guard maxPerAddress >= 0 else {
            throw ValidationError("--max-per-address must be 0 (no limit) or more (got \(maxPerAddress))")
        }
        if (cert == nil) != (key == nil) {
            throw ValidationError("--cert and --key go together")
        }
        if noTLS && cert != nil {
            throw ValidationError("--no-tls and --cert contradict each other")
        }
        if let tlsPort, !(0...65535).contains(tlsPort) {
            throw ValidationError("--tls-port must be between 0 and 65535 (got \(tlsPort))")
        }
        if tlsPort != nil && noTLS {
            throw ValidationError("--tls-port needs TLS; it cannot go with --no-tls")
        }
        if !links.isEmpty && linkPassword == nil {
            throw ValidationError("--link needs --link-password")
        }
        for link in links {
            guard ChatLinkPeer(argument: link, password: "") != nil else {
                throw ValidationError("--link takes NAME or NAME=HOST:PORT (got '\(link)')")
            }
        }
    }

    func run() async throws {
        let verbose = verbose
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
        let hostName = ProcessInfo.processInfo.hostName
        let networkName = name ?? "StreamTaskKit chat on \(hostName)"
        let configuration = try makeConfiguration(networkName: networkName, serverName: serverName ?? hostName)
        let server = ChatServer(configuration: configuration)
        do {
            try await server.start()
        } catch {
            printError("chat-server: \(Self.describe(error))")
            throw ExitCode.failure
        }
        let boundPort = server.port ?? port
        let address = host.contains(":") ? "[\(host)]" : host
        printLine("listening on \(address):\(boundPort)")

        let fingerprint = configuration.tls?.certificateChain.first?.sha256Fingerprint
        if let fingerprint {
            printLine("STARTTLS certificate \(ChatServiceRecord.fingerprint(fingerprint))")
        }
        var registration: DNSSDRegistration?
        if !noAdvertise {
            let record = ChatServiceRecord(
                name: networkName, offersSTARTTLS: fingerprint != nil, certificateSHA256: fingerprint)
            do {
                registration = try await server.listener.advertise(
                    name: networkName, type: ChatServiceRecord.serviceType, txtRecord: DNSSDTXTRecord(record.txtRecord))
                printLine("advertised as \"\(registration?.name ?? networkName)\" (\(ChatServiceRecord.serviceType))")
            } catch {
                printError("chat-server: not advertised over DNS-SD: \(Self.describe(error))")
            }
        }

        // SIGINT and SIGTERM shut the server down gracefully: every client gets its last line.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server)],
                gracefulShutdownSignals: [.sigint, .sigterm],
                logger: Logger(label: "chat-server.lifecycle")))
        try await group.run()
        registration?.cancel()
    }

    /// What went wrong, in the user's terms: the library's message, without its type's name.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as StreamTaskError: error.summary
        case let error as DNSSDError: error.message
        default: error.localizedDescription
        }
    }

    private func makeConfiguration(networkName: String, serverName: String) throws -> ChatServerConfiguration {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        let created = formatter.string(from: Date())
        var identity = ChatServerIdentity(
            serverName: serverName, networkName: networkName, createdText: created, offersSTARTTLS: false)
        if let motdFile {
            let text = try String(contentsOfFile: motdFile, encoding: .utf8)
            identity.motd = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if identity.motd.last == "" { identity.motd.removeLast() }
        }
        var configuration = ChatServerConfiguration(identity: identity, tls: try makeTLS(commonName: serverName))
        configuration.host = host
        configuration.port = port
        configuration.maximumClients = maxClients
        configuration.maximumClientsPerAddress = maxPerAddress == 0 ? nil : maxPerAddress
        if noFloodLimit { configuration.floodBurst = nil }
        if let registrationTimeout { configuration.registrationTimeout = .seconds(registrationTimeout) }
        if let idleTimeout { configuration.idleTimeout = .seconds(idleTimeout) }
        if let pingTimeout { configuration.pingTimeout = .seconds(pingTimeout) }
        configuration.links = links.compactMap { ChatLinkPeer(argument: $0, password: linkPassword ?? "") }
        if let linkConfig {
            do {
                configuration.links += try ChatLinkConfigurationFile.peers(contentsOf: linkConfig)
            } catch {
                throw ValidationError("--link-config \(linkConfig): \(error)")
            }
        }
        configuration.tlsPort = tlsPort
        if let linkIdleTimeout { configuration.linkIdleTimeout = .seconds(linkIdleTimeout) }
        if let linkPingTimeout { configuration.linkPingTimeout = .seconds(linkPingTimeout) }
        if let linkRetryMaximum {
            configuration.linkRetryMaximum = .seconds(linkRetryMaximum)
            configuration.linkRetryInterval = min(configuration.linkRetryInterval, .seconds(linkRetryMaximum))
        }
        configuration.logger = Logger(label: "chat-server")
        return configuration
    }

    /// The STARTTLS configuration: `--cert`/`--key`, or the kept self-signed certificate.
    private func makeTLS(commonName: String) throws -> StreamTLSConfiguration? {
        if noTLS { return nil }
        if let cert, let key {
            do {
                return try StreamTLSConfiguration.server(certificatePEMFile: cert, privateKeyPEMFile: key)
            } catch {
                throw ValidationError("--cert \(cert) and --key \(key): \(Self.describe(error))")
            }
        }
        let store = ChatCertificateStore(
            directory: stateDirectory.map { URL(fileURLWithPath: $0) } ?? ChatCertificateStore.defaultDirectory)
        let tls: StreamTLSConfiguration
        let created: Bool
        do {
            (tls, created) = try store.loadOrCreate(commonName: commonName)
        } catch {
            throw ValidationError("the STARTTLS certificate in \(store.directory.path): \(Self.describe(error))")
        }
        if created {
            printError("chat-server: made a self-signed certificate for STARTTLS in \(store.directory.path)")
        }
        return tls
    }
}
