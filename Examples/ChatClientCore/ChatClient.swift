//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import NIOCore
import StreamTaskDNSSD
import StreamTaskKit

/// The chat client: connects, upgrades with STARTTLS when it should, registers, joins, shows
/// what arrives and sends what the user types; reconnects when the connection drops.
///
/// ```swift
/// let client = ChatClient(options: options, ui: PlainUserInterface())
/// let status = await client.run()   // until /quit or the end of input
/// ```
public actor ChatClient {
    /// Why a connection attempt must not be retried.
    struct FatalError: Error, CustomStringConvertible {
        let description: String
    }

    private let options: ChatClientOptions
    private let ui: any ChatUserInterface
    private let formatter: ChatFormatter
    private let session: StreamSession
    private var state: ChatClientState
    private var task: StreamTask?
    /// Keeps what the user sends within the server's flood limits, across lines.
    private var pacer: ChatSendPacer
    /// Which of the user's lines the server is known to have; what a drop may have lost.
    private var ledger = ChatDeliveryLedger()
    /// Asks for a confirmation once the user pauses (see ``confirmDelivery()``).
    private var confirmationTimer: Task<Void, Never>?
    private var quitting = false
    /// Whether the client has registered on a server at least once since it started.
    private var registeredOnce = false
    /// Input ended before the first registration: quit once the attempt under way has
    /// registered or failed, rather than cutting it short with nothing said.
    private var quitsWhenSettled = false
    /// Whether NICK and USER have gone out on this connection: after STARTTLS's upgrade when
    /// it is asked for, so that nothing typed goes out in plaintext before it.
    private var registrationSent = false
    private var awaitingCapabilities = false
    /// How many lines read in one batch with the line being handled are still to come after it.
    private var linesLeftInBatch = 0
    private var lastTraffic = ContinuousClock.now
    /// Set when a better route to the server appeared: reconnect at the next quiet moment.
    private var betterRoutePending = false
    /// Set when this connection is being replaced over a better route: reconnect at once.
    private var movingToBetterRoute = false
    /// Where a server found through DNS-SD was last found to be.
    private var lastResolution: DNSSDResolvedService?
    /// How long a connection attempt may go on after input ended before the first registration.
    static let settlingLimit = Duration.seconds(30)
    /// How long nothing must be sent or received before moving to a better route.
    static let quietPeriod = Duration.seconds(2)

    /// A client with `options`, talking to the user through `ui`.
    public init(options: ChatClientOptions, ui: any ChatUserInterface) {
        self.options = options
        self.ui = ui
        formatter = ChatFormatter(colors: ui.isTerminal)
        state = ChatClientState(nick: options.nick, autojoin: options.channels)
        pacer = ChatSendPacer(burst: options.pacedAfterLines, linesPerSecond: options.pacedLinesPerSecond)
        let configuration = StreamSessionConfiguration.default
        configuration.proxy = options.proxy
        configuration.tls = options.tlsConfiguration
        configuration.transportSecurity = options.transportSecurity
        configuration.timeoutIntervalForRequest = 15
        session = StreamSession(configuration: configuration)
    }

    /// Runs until the user quits or input ends; returns the process exit status: 0, or 1 when
    /// a connection could not be made or secured as asked, or none was ever made. Input that
    /// ends before the first connection lets that attempt finish, so its outcome is shown.
    public func run() async -> Int32 {
        let inputs = Task { await self.readInputs() }
        defer { inputs.cancel() }
        var delay = 1.0
        var status: Int32 = 0
        while !quitting {
            let started = ContinuousClock.now
            do {
                try await connectAndServe()
            } catch let error as FatalError {
                show(.error, error.description)
                status = 1
                break
            } catch let error as StreamTaskError where Self.isLasting(error) {
                // Trying again gets the same certificate, and the same refusal.
                show(
                    .error,
                    "\(options.targetDescription): \(Self.describe(error)); not reconnecting, since this will not change by itself"
                )
                status = 1
                break
            } catch {
                if !quitting && !movingToBetterRoute {
                    show(.error, "\(options.targetDescription): \(Self.describe(error))")
                }
            }
            task = nil
            confirmationTimer?.cancel()
            confirmationTimer = nil
            reportLostLines(ledger.connectionEnded())
            state.connectionEnded()
            betterRoutePending = false
            // Input that ended before a first connection stops the client after this attempt,
            // though the task reading the input may not have seen the end yet.
            guard !quitting, !quitsWhenSettled, registeredOnce || !ui.inputHasEnded else { break }
            if movingToBetterRoute {
                movingToBetterRoute = false
                delay = 1
                continue
            }
            guard options.reconnects else {
                status = 1
                break
            }
            if ContinuousClock.now - started > .seconds(30) { delay = 1 }
            show(
                .info,
                registeredOnce
                    ? "disconnected; reconnecting in \(Int(delay)) s (/quit to stop)"
                    : "could not connect; trying again in \(Int(delay)) s (/quit to stop)")
            // In steps, so that /quit does not wait out the delay.
            let wakeUp = ContinuousClock.now + .seconds(delay)
            while !quitting, ContinuousClock.now < wakeUp { try? await Task.sleep(for: .milliseconds(100)) }
            delay = min(delay * 2, 30)
        }
        ui.setPrompt("")
        if !registeredOnce {
            // Whatever stopped it, a client that never got on a server says so and fails.
            show(.error, "never connected to \(options.targetDescription)")
            status = 1
        }
        return status
    }

    // MARK: - Connection

    private func connectAndServe() async throws {
        show(.info, "connecting to \(options.targetDescription)…")
        let task: StreamTask
        switch options.target {
        case .host(let host, let port):
            task = session.streamTask(withHostName: host, port: port)
            if options.security == .tls { task.startSecureConnection() }
            task.resume()
        case .discovered(let server):
            task = try await session.streamTask(with: resolve(server))
            if options.security == .tls { task.startSecureConnection() }
        }
        self.task = task
        registrationSent = false
        // The server counts afresh: the whole burst again, under the client's own limits until
        // the server announces its own.
        pacer = ChatSendPacer(burst: options.pacedAfterLines, linesPerSecond: options.pacedLinesPerSecond)
        // /quit typed while a discovered server was being resolved found no task to close.
        if quitting {
            task.cancel()
            return
        }
        let routes = Task { await self.watchRoutes(of: task) }
        defer {
            routes.cancel()
            task.cancel()
        }

        awaitingCapabilities = options.security == .startTLS
        try await unlessClosedByServer {
            try await send(IRCMessage(command: "CAP", parameters: ["LS", "302"]))
            if options.security != .startTLS { try await sendRegistration() }
        }

        let capabilityDeadline = Date().addingTimeInterval(options.capabilityTimeout)
        while let lines = try await readLines(from: task, capabilityDeadline: capabilityDeadline) {
            lastTraffic = .now
            for (index, line) in lines.enumerated() {
                linesLeftInBatch = lines.count - index - 1
                guard let message = try? IRCMessage(parsing: line, maxLength: 8190) else {
                    continue
                }
                if ledger.received(message) {
                    scheduleConfirmation()
                    continue
                }
                try await unlessClosedByServer { try await apply(state.handle(message)) }
                if message.command == "005" { pacer = pacer.tightened(to: state.floodLimits) }
            }
            try await unlessClosedByServer { try await apply(state.flushNetsplits()) }
        }
        if !quitting && !movingToBetterRoute { show(.error, "the server closed the connection") }
    }

    /// Where to connect to a server found through DNS-SD: where it was found, the first time;
    /// then wherever it is advertised now, since a server that restarted may listen on another
    /// port (the demo's server takes a free one), or run on another host.
    private func resolve(_ server: DiscoveredChatServer) async throws -> DNSSDResolvedService {
        guard let previous = lastResolution else {
            lastResolution = server.resolved
            return server.resolved
        }
        let resolved = try await previous.service.resolve(timeout: 5)
        if resolved.hostName != previous.hostName || resolved.port != previous.port {
            show(.info, "\(options.targetDescription) is now advertised at \(resolved.hostName):\(resolved.port)")
        }
        lastResolution = resolved
        return resolved
    }

    /// Runs `body`, but a write that failed because the server closed the connection is not
    /// thrown: what the server sent before it closed (often an `ERROR` line saying why) is
    /// still to be read, and the read loop shows it and then ends at the close. Any other
    /// failure is thrown.
    private func unlessClosedByServer(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as StreamTaskError
            where [.connectionClosed, .connectionReset, .tlsTruncated].contains(error.code)
        {
            return
        }
    }

    /// How the server's lines are read: CR LF or LF, and at most 8 KiB, which leaves room for
    /// any server's tags. A longer line is skipped, as the server skips one of ours. Ours are
    /// written with it too, ending in CR LF.
    private static let lines = LineFramer(ending: .crlf, maximumLineLength: 8190)

    /// The server's next lines: the next one, and those that came with it, handled as one
    /// batch; `nil` when the server closed the connection. While the answer to `CAP LS` is
    /// awaited for STARTTLS, a read that outlasts `capabilityDeadline` ends the attempt: no
    /// STARTTLS is on offer.
    private func readLines(from task: StreamTask, capabilityDeadline: Date) async throws -> [[UInt8]]? {
        do {
            while true {
                let timeout = awaitingCapabilities ? max(0.001, capabilityDeadline.timeIntervalSinceNow) : 0
                do {
                    guard let first = try await task.readMessage(framedBy: Self.lines, timeout: timeout) else {
                        return nil
                    }
                    var lines = [Array(first.readableBytesView)]
                    while let line = try task.readBufferedMessage(framedBy: Self.lines) {
                        lines.append(Array(line.readableBytesView))
                    }
                    return lines
                } catch let error as StreamTaskError where error.code == .invalidFrame {
                    guard try await task.skipLine(timeout: timeout) else { return nil }
                } catch let error as StreamTaskError where error.code == .truncatedFrame {
                    return nil
                }
            }
        } catch let error as StreamTaskError where awaitingCapabilities && error.code == .timedOut {
            throw FatalError(
                description:
                    "\(options.targetDescription) did not answer CAP LS within \(options.capabilityTimeout) s: it seems to have no capability negotiation, so no STARTTLS; not going on in plaintext"
            )
        }
    }

    private func sendRegistration() async throws {
        registrationSent = true
        if let password = options.password {
            try await send(IRCMessage(command: "PASS", parameters: [password]))
        }
        try await send(IRCMessage(command: "NICK", parameters: [state.nick]))
        try await send(
            IRCMessage(command: "USER", parameters: [Self.userName(state.nick), "0", "*", options.realName]))
    }

    /// Carries out what a server message asked for.
    private func apply(_ effects: [ChatClientState.Effect]) async throws {
        for effect in effects {
            switch effect {
            case .show(let line):
                ui.show(formatter.render(line, currentChannel: state.currentChannel))
            case .send(let message):
                try await send(message)
            case .registered:
                if options.security == .tls, let task {
                    showSecured(task)
                }
                show(.info, "registered as \(state.nick) on \(options.targetDescription)")
                registeredOnce = true
                updatePrompt()
                if quitsWhenSettled { await quit(reason: nil) }
            case .capabilities(let offersTLS):
                guard awaitingCapabilities else {
                    try await send(IRCMessage(command: "CAP", parameters: ["END"]))
                    continue
                }
                awaitingCapabilities = false
                guard offersTLS else {
                    throw FatalError(
                        description: "\(options.targetDescription) does not offer STARTTLS; not going on in plaintext")
                }
                try await send(IRCMessage(command: "STARTTLS"))
            case .startTLS:
                try await upgrade()
                try await sendRegistration()
                try await send(IRCMessage(command: "CAP", parameters: ["END"]))
            case .startTLSRefused(let reason):
                if options.security == .startTLS {
                    throw FatalError(description: "STARTTLS refused (\(reason)); not going on in plaintext")
                }
            case .closing(let reason):
                // The answer to our QUIT came after every line written before it.
                if quitting { ledger.allConfirmed() }
                show(.info, "server closing the link: \(reason)")
            case .refused(let reason):
                throw FatalError(description: "\(options.targetDescription) refused us: \(reason); not reconnecting")
            }
        }
        updatePrompt()
    }

    /// Upgrades after `670`. Anything the server sent after `670` in plaintext is an attack:
    /// the library refuses it (`tlsPlaintextInjection`) and closes the connection.
    private func upgrade() async throws {
        guard let task else { return }
        // Lines read with `670` are plaintext after it too; the library sees only what is
        // still buffered.
        guard linesLeftInBatch == 0 else {
            throw FatalError(description: "the server sent plaintext after 670; closing")
        }
        do {
            try await task.startTLS(timeout: 30)
        } catch let error as StreamTaskError where error.code == .tlsPlaintextInjection {
            throw FatalError(description: "the server sent plaintext after 670; closing")
        } catch let error as StreamTaskError {
            throw FatalError(description: "TLS upgrade failed: \(Self.describe(error))")
        }
        showSecured(task)
    }

    private func showSecured(_ task: StreamTask) {
        let metrics = task.metrics
        let pinned =
            options.pinnedCertificateSHA256.map {
                ", certificate matches the pinned fingerprint \(ChatServiceRecord.fingerprint($0))"
            } ?? ""
        show(
            .info,
            "secured with \(metrics.negotiatedTLSVersion ?? "TLS") \(metrics.negotiatedCipherSuite ?? "")\(pinned)")
    }

    private func send(_ message: IRCMessage) async throws {
        guard let task else { return }
        let line = try message.fitted().serialized()
        lastTraffic = .now
        try await task.send(ByteBuffer(string: line), framedBy: Self.lines, timeout: 30)
    }

    // MARK: - Routes

    /// Follows the connection's route events: a better route is taken at the next quiet
    /// moment (nothing sent or received for ``quietPeriod``), by reconnecting and rejoining;
    /// a connection that stops being viable is reported, and so is its return.
    private func watchRoutes(of task: StreamTask) async {
        for await event in task.events {
            guard task === self.task else { return }
            switch event {
            case .betterRouteDiscovered where !betterRoutePending:
                betterRoutePending = true
                show(.info, "a better route to the server appeared; moving to it at the next quiet moment")
                Task { await self.moveToBetterRouteWhenQuiet(from: task) }
            case .viabilityChanged(let isViable):
                show(
                    isViable ? .info : .error,
                    isViable
                        ? "the connection's network is back"
                        : "the connection's network went away (its address or interface); waiting for it to come back")
            default:
                break
            }
        }
    }

    private func moveToBetterRouteWhenQuiet(from task: StreamTask) async {
        while betterRoutePending, task === self.task, !quitting {
            let quietFor = ContinuousClock.now - lastTraffic
            if quietFor >= Self.quietPeriod, state.isRegistered {
                movingToBetterRoute = true
                show(
                    .info,
                    "moving to the better route: reconnecting and rejoining \(state.channels.joined(separator: ", "))")
                try? await send(IRCMessage(command: "QUIT", parameters: ["Changing network route"]))
                task.cancel()
                return
            }
            try? await Task.sleep(for: max(.milliseconds(200), Self.quietPeriod - quietFor))
        }
    }

    // MARK: - Input

    private func readInputs() async {
        for await input in ui.inputs {
            switch input {
            case .line(let line):
                await handle(line)
            case .end where !registeredOnce && !quitting:
                quitsWhenSettled = true
                // A server that accepts but never answers must not keep the client forever.
                Task {
                    try? await Task.sleep(for: Self.settlingLimit)
                    await self.quit(reason: nil)
                }
                return
            case .end:
                await quit(reason: nil)
                return
            }
            if quitting { return }
        }
    }

    private func handle(_ line: String) async {
        // What is typed (or piped in by a script) before the session is ready waits for it;
        // `/nick` and `/quote` need not, so a nickname refused while registering can be fixed.
        let early = ChatInputCommand.worksBeforeRegistration(line)
        if !ChatInputCommand.needsNoServer(line) {
            if !isReady(early: early), !line.trimmingSpaces.isEmpty {
                let why = task == nil ? "not connected" : "not registered yet"
                show(.info, "\(why): this line waits and goes out once the client is (/quit to stop)")
            }
            await waitUntilReady(early: early)
        }
        let command = ChatInputCommand(
            parsing: line, currentChannel: state.currentChannel, channelTypes: state.channelTypes)
        switch command {
        case .none: break
        case .help: for text in ChatInputCommand.helpText { show(.info, text) }
        case .error(let text): show(.error, text)
        case .quit(let reason): await quit(reason: reason)
        case .switchChannel(let channel):
            if !state.switchChannel(to: channel) { show(.error, "not in \(channel)") }
            updatePrompt()
        case .listServers: await listServers()
        case .resend: await resend()
        case .send(let messages):
            guard task != nil, state.isRegistered || (early && registrationSent) else {
                show(.error, "not connected yet; try again in a moment")
                return
            }
            for message in messages {
                if message.command == "JOIN", let channel = message.parameters.first, !channel.contains(","),
                    state.isJoined(channel)
                {
                    _ = state.switchChannel(to: channel)
                    updatePrompt()
                    show(.info, "now talking in \(state.currentChannel ?? channel)")
                    continue
                }
                // A long message goes as several, each short enough to arrive whole. Every piece
                // of every line is paced within the server's flood limits (a paste of many short
                // lines as much as one long one), and echoed once it is written, so the echo is
                // exactly what was sent.
                let pieces = ChatMessageSplitter.split(message, nick: state.nick)
                guard await sendPaced(pieces) else { return }
            }
        }
    }

    /// Sends `pieces` in order, each paced within the server's flood limits and echoed once it
    /// is written; the user's lines among them are tracked until the server confirms them. Stops
    /// when the user quits, or at a write that fails: that piece and the rest are kept for
    /// /resend. Returns whether every piece was written.
    private func sendPaced(_ pieces: [IRCMessage]) async -> Bool {
        for (index, piece) in pieces.enumerated() {
            // A user who quit while a piece waited for its turn sends nothing more.
            if await waitForPacing(), quitting { return false }
            if piece.command == "NICK", let nickname = piece.parameters.first {
                state.nicknameRequested(nickname)
            }
            do {
                try await send(piece)
            } catch {
                for unsent in pieces[index...] where Self.isUserLine(unsent) { ledger.notWritten(unsent) }
                show(.error, "not sent: \(Self.describe(error)); /resend sends it once reconnected")
                return false
            }
            echo(piece)
            if Self.isUserLine(piece) {
                ledger.written(piece)
                scheduleConfirmation()
            }
        }
        return true
    }

    /// Waits until the pacing lets the next line go; returns whether it had to wait.
    @discardableResult
    private func waitForPacing() async -> Bool {
        let wait = pacer.nextLine()
        guard wait > .zero else { return false }
        try? await Task.sleep(for: wait)
        return true
    }

    /// Whether `message` is something the user said (a message or a notice), which the client
    /// keeps track of until the server confirms it has it.
    static func isUserLine(_ message: IRCMessage) -> Bool {
        message.command == "PRIVMSG" || message.command == "NOTICE"
    }

    /// Asks the server to confirm the lines written so far: at once after a run of
    /// ``confirmAfterLines`` lines, else once the user has paused for ``confirmAfterPause``, so
    /// that a paste costs the flood limit one more line in every few, not one per line.
    private func scheduleConfirmation() {
        guard !ledger.awaitsConfirmation, !ledger.unconfirmed.isEmpty else { return }
        if ledger.unconfirmed.count >= Self.confirmAfterLines {
            confirmationTimer?.cancel()
            confirmationTimer = nil
            Task { await self.confirmDelivery() }
            return
        }
        confirmationTimer?.cancel()
        confirmationTimer = Task {
            try? await Task.sleep(for: Self.confirmAfterPause)
            guard !Task.isCancelled else { return }
            await self.confirmDelivery()
        }
    }

    /// Sends the `PING` whose `PONG` confirms the lines written before it, paced as they are.
    private func confirmDelivery() async {
        // Between connections there is no one to ask: the lines are the dropped one's to report.
        guard task != nil, let ping = ledger.confirmationRequest() else { return }
        await waitForPacing()
        try? await send(ping)
    }

    /// How many unconfirmed lines make the client ask for a confirmation at once.
    static let confirmAfterLines = 8
    /// How long a pause makes the client ask for a confirmation of fewer lines.
    static let confirmAfterPause = Duration.seconds(1)

    /// Says plainly which lines a dropped connection may have lost; they are kept for /resend.
    private func reportLostLines(_ lost: [IRCMessage]) {
        guard !lost.isEmpty else { return }
        let shown = lost.prefix(3).map { "\"\($0.parameters.last ?? "")\"" }.joined(separator: ", ")
        let more = lost.count > 3 ? " and \(lost.count - 3) more" : ""
        show(
            .error,
            "the server may not have got \(lost.count == 1 ? "this line" : "these \(lost.count) lines") before the connection dropped: \(shown)\(more); /resend sends \(lost.count == 1 ? "it" : "them") again once reconnected"
        )
    }

    /// Sends again, paced and echoed, the lines kept from a dropped connection.
    private func resend() async {
        let lines = ledger.takeUndelivered()
        guard !lines.isEmpty else {
            show(.info, "nothing to resend")
            return
        }
        show(.info, "resending \(lines.count == 1 ? "1 line" : "\(lines.count) lines")")
        _ = await sendPaced(lines)
    }

    /// Waits (at most 30 s) until registered and the channels to join have been answered, or
    /// quitting. `early` lines (`/nick`, `/quote`) wait only until registration has been sent, which
    /// under STARTTLS is after the upgrade.
    private func waitUntilReady(early: Bool) async {
        let deadline = ContinuousClock.now + .seconds(30)
        while !quitting && ContinuousClock.now < deadline {
            if isReady(early: early) { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Whether a typed line can go now (an `early` one: once registration has been sent).
    private func isReady(early: Bool) -> Bool {
        task != nil && (early ? registrationSent : state.isReady)
    }

    /// Shows what we said, since the server does not echo messages to their sender.
    private func echo(_ message: IRCMessage) {
        guard message.command == "PRIVMSG", message.parameters.count == 2 else { return }
        let target = message.parameters[0]
        var text = message.parameters[1]
        let channel = IRCName.isChannel(target, types: state.channelTypes) ? target : nil
        if text.hasPrefix("\u{1}ACTION ") {
            text = String(text.dropFirst(8).prefix { $0 != "\u{1}" })
            ui.show(
                formatter.render(
                    ChatDisplayLine(.action, channel: channel, nick: state.nick, text),
                    currentChannel: state.currentChannel))
        } else {
            let shown = channel == nil ? "-> \(target): \(text)" : text
            ui.show(
                formatter.render(
                    ChatDisplayLine(.own, channel: channel, nick: state.nick, shown),
                    currentChannel: state.currentChannel))
        }
    }

    private func quit(reason: String?) async {
        guard !quitting else { return }
        quitting = true
        guard let task else { return }
        // The server answers with ERROR and closes; the read loop then ends. Don't wait forever,
        // not even for the QUIT to go out: a connection still opening (a proxy that does not
        // answer) holds it back.
        Task {
            try? await Task.sleep(for: .seconds(3))
            task.cancel()
        }
        try? await send(IRCMessage(command: "QUIT", parameters: [reason ?? "Leaving"]))
    }

    private func listServers() async {
        show(.info, "looking for chat servers on the LAN…")
        do {
            let servers = try await ChatServerDiscovery.find(for: 2)
            if servers.isEmpty { show(.info, "none found") }
            for (index, server) in servers.enumerated() { show(.info, "\(index + 1). \(server.summary)") }
        } catch {
            show(.error, "DNS-SD: \(error)")
        }
    }

    // MARK: - Output

    private func show(_ kind: ChatDisplayLine.Kind, _ text: String) {
        let line = formatter.render(ChatDisplayLine(kind, text), currentChannel: state.currentChannel)
        if kind == .error { ui.showError(line) } else { ui.show(line) }
    }

    private func updatePrompt() {
        ui.setPrompt(state.currentChannel.map { "[\($0)] " } ?? "[\(state.nick)] ")
    }

    /// Whether `error` is a refusal that will not change by itself: the server's certificate is
    /// not trusted, not for this name, expired, not the pinned one, its TLS too old, or refused
    /// by App Transport Security.
    static func isLasting(_ error: StreamTaskError) -> Bool {
        error.code.isTransportSecurity
            || [
                .tlsUntrustedCertificate, .tlsHostnameMismatch, .tlsCertificateExpired, .tlsPinMismatch,
                .tlsVersionTooOld,
            ]
            .contains(error.code)
    }

    /// What went wrong, in one line of the user's terms: the library's message without its
    /// type's name, fingerprints in the chat's form, and for a server found on the LAN that
    /// no address of answered, the last address's reason rather than every one's.
    static func describe(_ error: any Error) -> String {
        let text: String
        switch error {
        case let error as StreamTaskError:
            text = error.message
        case let error as DNSSDError where error.code == .connectFailed:
            let reason = error.underlyingError.map { ($0 as? StreamTaskError)?.message ?? "\($0)" }
            text = "could not connect to the server found on the LAN: \(reason ?? "it has no addresses")"
        case let error as DNSSDError:
            text = error.message
        default:
            text = "\(error)"
        }
        return ChatFingerprintFormat.unified(text)
    }

    /// A user name the server accepts: the nickname's letters and digits.
    static func userName(_ nick: String) -> String {
        let kept = nick.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return kept.isEmpty ? "chat" : String(kept.prefix(IRCLimits.userNameLength))
    }
}
