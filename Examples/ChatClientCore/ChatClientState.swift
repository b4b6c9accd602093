//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// The client's view of its IRC session: its nickname, the channels it is in, the one plain
/// text goes to, and what each line from the server means for them.
///
/// ``handle(_:)`` turns one server message into ``Effect``s (lines to show, replies to send),
/// with no I/O, so tests feed it lines.
public struct ChatClientState: Sendable {
    /// What a server message asks of the client.
    public enum Effect: Sendable, Hashable {
        /// Show this line.
        case show(ChatDisplayLine)
        /// Send this message (`PONG`, `CAP END`, a nickname retry, a rejoin).
        case send(IRCMessage)
        /// Registration completed (`001`).
        case registered
        /// The server accepted `STARTTLS` (`670`): upgrade before sending anything else.
        case startTLS
        /// The server refused `STARTTLS` (`691`), with its reason.
        case startTLSRefused(String)
        /// The server's `CAP LS` reply, with whether it lists `tls`.
        case capabilities(offersTLS: Bool)
        /// The server sent `ERROR`: it is closing the connection.
        case closing(String)
        /// The server refused us for a reason that will not change by itself (`464`, a wrong
        /// server password; `465`, a ban): connecting again would only be refused again.
        case refused(String)
    }

    /// The nickname in use, or the one being tried before registration.
    public private(set) var nick: String
    /// Whether the server has welcomed us.
    public private(set) var isRegistered = false
    /// Whether the channels of ``autojoin`` were asked for and neither a join nor an error has
    /// come back yet.
    public private(set) var awaitingAutojoin = false
    /// Whether typed lines can go: registered, and the first join asked for has been answered
    /// (so plain text goes to that channel), or failed.
    public var isReady: Bool { isRegistered && !awaitingAutojoin }
    /// Channels joined, as the server named them, in the order joined.
    public private(set) var channels: [String] = []
    /// Where plain text goes: the channel joined or switched to last.
    public private(set) var currentChannel: String?
    /// Channels to join (again) once registered: the ones given at start and the ones joined
    /// before a reconnection.
    public var autojoin: [String]
    /// How the server compares names (its `CASEMAPPING`).
    public private(set) var caseMapping = IRCCaseMapping.rfc1459
    /// The network name from `005`, or the server's name.
    public private(set) var networkName: String?
    /// The first characters of channel names: the server's `CHANTYPES` once it sent `005`.
    public private(set) var channelTypes = IRCName.defaultChannelTypes
    /// The longest nickname the server takes: its `NICKLEN`, or less when it cut a nickname
    /// we tried while registering.
    public private(set) var nicknameLimit = IRCLimits.nicknameLength
    /// The flood limits the server announced (`FLOOD` in `005`); Protocol.md's until it does.
    public private(set) var floodLimits = IRCFloodLimits.protocolDefaults
    private var nickAttempts = 0
    /// Set when the user picked a nickname with `/nick` before registration: refusals are
    /// then reported, not answered with retries of our own.
    private var nickChosenByUser = false
    private let wantedNick: String
    /// Netsplit quits and returns, gathered into one line each.
    var netsplits = ChatNetsplitTracker()

    /// A session that will register as `nick` and join `autojoin`.
    public init(nick: String, autojoin: [String] = []) {
        self.nick = nick
        self.wantedNick = nick
        self.autojoin = autojoin
    }

    /// Forget the connection (before reconnecting): channels become the autojoin list.
    public mutating func connectionEnded() {
        if !channels.isEmpty { autojoin = channels }
        isRegistered = false
        awaitingAutojoin = false
        channels = []
        nickAttempts = 0
        nickChosenByUser = false
        floodLimits = .protocolDefaults
    }

    /// Make `channel` (already joined) the current one. Returns whether it is joined.
    public mutating func switchChannel(to channel: String) -> Bool {
        guard let joined = channels.first(where: { caseMapping.equals($0, channel) }) else { return false }
        currentChannel = joined
        return true
    }

    /// Whether `channel` is joined.
    public func isJoined(_ channel: String) -> Bool {
        channels.contains { caseMapping.equals($0, channel) }
    }

    /// The user asked for `nickname` with `/nick` before registration completed: it is the
    /// nickname being tried now.
    public mutating func nicknameRequested(_ nickname: String) {
        guard !isRegistered else { return }
        nick = nickname
        nickChosenByUser = true
    }

    /// We are no longer in `channel` (parted or kicked): the current channel moves to the one
    /// joined last.
    private mutating func left(_ channel: String) {
        awaitingAutojoin = false
        autojoin.removeAll { caseMapping.equals($0, channel) }  // a reconnection does not rejoin it
        channels.removeAll { caseMapping.equals($0, channel) }
        if let current = currentChannel, caseMapping.equals(current, channel) { currentChannel = channels.last }
    }

    /// What `message` means, netsplits aside (see ``handle(_:)``).
    mutating func interpret(_ message: IRCMessage) -> [Effect] {
        let parameters = message.parameters
        let last = parameters.last ?? ""
        let sender = message.sourceNickname ?? ""
        let fromMe = caseMapping.equals(sender, nick)
        if awaitingAutojoin, message.isRefusal, parameters.count > 1,
            autojoin.contains(where: { caseMapping.equals($0, parameters[1]) })
        {
            awaitingAutojoin = false  // a join refused (403, 405, 471, 473, 474, InspIRCd's 926, …)
        }
        switch message.command {
        case "PING":
            return [.send(IRCMessage(command: "PONG", parameters: parameters.isEmpty ? [""] : [parameters[0]]))]
        case "CAP":
            guard parameters.count >= 3 else { return [] }
            if parameters[1].uppercased() == "LS" {
                let offered = IRCName.items(of: last, separatedBy: " ").map {
                    IRCName.items(of: $0, separatedBy: "=").first ?? ""
                }
                return [.capabilities(offersTLS: offered.contains("tls"))]
            }
            return []
        case "670":
            return [.startTLS]
        case "691":
            return [.startTLSRefused(last)]
        case "001":
            isRegistered = true
            if let confirmed = parameters.first { nick = confirmed }
            var effects: [Effect] = [.registered, .show(ChatDisplayLine(.info, last))]
            if !autojoin.isEmpty {
                awaitingAutojoin = true
                effects.append(.send(IRCMessage(command: "JOIN", parameters: [autojoin.joined(separator: ",")])))
            }
            return effects
        case "002", "003", "004", "375", "376", "366", "315", "321", "323", "329", "333", "368":
            return []
        case "005":
            for token in parameters.dropFirst().dropLast() {
                let (key, value) = token.splitKeyValue()
                switch key {
                case "CASEMAPPING": caseMapping = IRCCaseMapping(isupportValue: value)
                case "NETWORK": if let value { networkName = value.replacingHexEscapes() }
                case "CHANTYPES": channelTypes = value?.replacingHexEscapes() ?? ""
                case "NICKLEN": if let length = value.flatMap({ Int($0) }), length > 0 { nicknameLimit = length }
                case "FLOOD":
                    if let limits = value.flatMap(IRCFloodLimits.init(isupportValue:)) { floodLimits = limits }
                default: break
                }
            }
            return []
        case "372", "422":
            return [.show(ChatDisplayLine(.info, last))]
        case "433" where !isRegistered, "432" where !isRegistered:
            let refused = parameters.count > 1 ? parameters[1] : nick
            if nickChosenByUser {
                return [.show(ChatDisplayLine(.error, "\(refused) is taken or not allowed: use /nick"))]
            }
            // A server that cuts long nicknames names the cut one: that length is its limit.
            if refused.count < nick.count, nick.hasPrefix(refused), !refused.isEmpty { nicknameLimit = refused.count }
            nickAttempts += 1
            guard nickAttempts <= 5 else {
                return [.show(ChatDisplayLine(.error, "no free nickname after \(nickAttempts) tries: use /nick"))]
            }
            let base = message.command == "432" ? "guest" : wantedNick
            nick =
                String(base.prefix(max(1, nicknameLimit - nickAttempts))) + String(repeating: "_", count: nickAttempts)
            return [
                .show(ChatDisplayLine(.info, "\(refused) is taken or not allowed; trying \(nick)")),
                .send(IRCMessage(command: "NICK", parameters: [nick])),
            ]
        case "JOIN":
            guard let channel = parameters.first else { return [] }
            if fromMe {
                awaitingAutojoin = false
                if !isJoined(channel) { channels.append(channel) }
                currentChannel = channels.first { caseMapping.equals($0, channel) }
                return [.show(ChatDisplayLine(.presence, channel: channel, nick: sender, "you joined \(channel)"))]
            }
            return [.show(ChatDisplayLine(.presence, channel: channel, nick: sender, "\(sender) joined \(channel)"))]
        case "PART":
            guard let channel = parameters.first else { return [] }
            let reason = parameters.count > 1 ? " (\(last))" : ""
            if fromMe {
                left(channel)
                return [
                    .show(ChatDisplayLine(.presence, channel: channel, nick: sender, "you left \(channel)\(reason)"))
                ]
            }
            return [
                .show(ChatDisplayLine(.presence, channel: channel, nick: sender, "\(sender) left \(channel)\(reason)"))
            ]
        case "KICK":
            guard parameters.count >= 2 else { return [] }
            let (channel, kicked) = (parameters[0], parameters[1])
            let reason = parameters.count > 2 ? " (\(last))" : ""
            if caseMapping.equals(kicked, nick) {
                left(channel)
                return [
                    .show(
                        ChatDisplayLine(
                            .presence, channel: channel, nick: sender, "\(sender) kicked you from \(channel)\(reason)"))
                ]
            }
            return [
                .show(
                    ChatDisplayLine(
                        .presence, channel: channel, nick: sender, "\(sender) kicked \(kicked) from \(channel)\(reason)"
                    ))
            ]
        case "MODE":
            guard parameters.count >= 2 else { return [] }
            let (target, change) = (parameters[0], parameters.dropFirst().joined(separator: " "))
            if IRCName.isChannel(target, types: channelTypes) {
                return [
                    .show(
                        ChatDisplayLine(
                            .presence, channel: target, nick: sender, "\(sender) set mode \(change) on \(target)"))
                ]
            }
            return [
                .show(
                    ChatDisplayLine(
                        .info,
                        caseMapping.equals(target, nick) ? "your user mode: \(change)" : "mode of \(target): \(change)")
                )
            ]
        case "QUIT":
            return [.show(ChatDisplayLine(.presence, nick: sender, "\(sender) quit (\(last))"))]
        case "NICK":
            guard let new = parameters.first else { return [] }
            if fromMe {
                nick = new
                return [.show(ChatDisplayLine(.presence, nick: new, "you are now known as \(new)"))]
            }
            return [.show(ChatDisplayLine(.presence, nick: new, "\(sender) is now known as \(new)"))]
        case "TOPIC":
            guard parameters.count >= 2 else { return [] }
            return [
                .show(
                    ChatDisplayLine(
                        .info, channel: parameters[0], "\(sender) set the topic of \(parameters[0]): \(last)"))
            ]
        case "PRIVMSG", "NOTICE":
            return [.show(displayLine(forMessage: message, sender: sender))]
        case "332":
            guard parameters.count >= 3 else { return [] }
            return [.show(ChatDisplayLine(.info, channel: parameters[1], "topic of \(parameters[1]): \(last)"))]
        case "331":
            return [
                .show(
                    ChatDisplayLine(
                        .info, channel: parameters.dropFirst().first,
                        "\(parameters.dropFirst().first ?? "") has no topic"))
            ]
        case "353":
            guard parameters.count >= 4 else { return [] }
            return [.show(ChatDisplayLine(.info, channel: parameters[2], "in \(parameters[2]): \(last)"))]
        case "322":
            guard parameters.count >= 4 else { return [] }
            let topic = last.isEmpty ? "" : ": \(last)"
            let users = parameters[2] == "1" ? "1 user" : "\(parameters[2]) users"
            return [.show(ChatDisplayLine(.info, channel: parameters[1], "\(parameters[1]) (\(users))\(topic)"))]
        case "352":
            guard parameters.count >= 8 else { return [] }
            return [
                .show(
                    ChatDisplayLine(
                        .info, channel: parameters[1],
                        "\(parameters[5]) (\(parameters[2])@\(parameters[3])) in \(parameters[1])"))
            ]
        case "311", "314":
            // RPL_WHOISUSER (and WHOWAS's 314): <client> <nick> <user> <host> * :<realname>
            guard parameters.count >= 6 else { return [] }
            return [.show(ChatDisplayLine(.info, "\(parameters[1]) is \(parameters[2])@\(parameters[3]) (\(last))"))]
        case "312":
            guard parameters.count >= 4 else { return [] }
            return [.show(ChatDisplayLine(.info, "\(parameters[1]) is on \(parameters[2]) (\(last))"))]
        case "319":
            guard parameters.count >= 3 else { return [] }
            return [.show(ChatDisplayLine(.info, "\(parameters[1]) is in \(last)"))]
        case "301":
            guard parameters.count >= 3 else { return [] }
            return [.show(ChatDisplayLine(.info, "\(parameters[1]) is away: \(last)"))]
        case "317":
            // RPL_WHOISIDLE: <client> <nick> <seconds> [<signon>] :seconds idle, signon time
            guard parameters.count >= 4, let seconds = Int(parameters[2]) else { return [] }
            return [.show(ChatDisplayLine(.info, "\(parameters[1]) has been idle \(Self.duration(seconds))"))]
        case "318":
            return []
        case "ERROR":
            return [.closing(last)]
        case "464", "465":
            let reason = message.command == "464" ? "wrong server password" : "banned from this server"
            return [.refused("\(reason) (\(message.command) \(last))")]
        case "421" where !isRegistered && parameters.count > 1 && parameters[1].uppercased() == "CAP",
            "451" where !isRegistered && parameters.count > 1 && parameters[1].uppercased() == "CAP":
            // A server without capability negotiation: it offers no STARTTLS either.
            return [.capabilities(offersTLS: false)]
        default:
            if message.isNumericReply {
                let isError = message.isErrorReply
                let text = Self.numericReplyText(
                    middle: Array(parameters.dropFirst().dropLast()), last: last, isError: isError)
                return [.show(ChatDisplayLine(isError ? .error : .info, text))]
            }
            return []
        }
    }

    /// A numeric reply the client has no sentence for, from the parameters between our nick
    /// and the last one: `#c: No such channel` for what it is about, but counts read as
    /// words (`254 me 3 :channels formed` is `3 channels formed`), and left out when the text
    /// says them already (`265 me 3 5 :Current local users 3, max 5`).
    static func numericReplyText(middle: [String], last: String, isError: Bool) -> String {
        guard !middle.isEmpty else { return last }
        guard !isError, middle.allSatisfy({ Int($0) != nil }) else {
            return "\(middle.joined(separator: " ")): \(last)"
        }
        let words = Set(last.split { !$0.isNumber }.map(String.init))
        return middle.allSatisfy(words.contains) ? last : "\(middle.joined(separator: " ")) \(last)"
    }

    /// A `PRIVMSG` or `NOTICE`: to a channel or to us alone, with CTCP `ACTION` shown as an
    /// action and other CTCP requests and replies described (never answered).
    private func displayLine(forMessage message: IRCMessage, sender: String) -> ChatDisplayLine {
        let target = message.parameters.first ?? ""
        let text = message.parameters.count > 1 ? message.parameters[1] : ""
        let channel = IRCName.isChannel(target, types: channelTypes) ? target : nil
        let isNotice = message.command == "NOTICE"
        if let (command, argument) = Self.ctcp(text) {
            if command == "ACTION", !isNotice {
                return ChatDisplayLine(
                    .action, channel: channel, nick: sender, channel == nil ? "\(argument) (to you)" : argument)
            }
            let detail = argument.isEmpty ? "" : ": \(argument)"
            let to = channel.map { " to \($0)" } ?? ""
            return ChatDisplayLine(
                .info, channel: channel,
                isNotice
                    ? "CTCP \(command) reply from \(sender)\(detail)"
                    : "\(sender) sent a CTCP \(command) request\(to)\(detail) (not answered)")
        }
        if isNotice {
            return ChatDisplayLine(.notice, channel: channel, nick: sender.isEmpty ? nil : sender, text)
        }
        return ChatDisplayLine(channel == nil ? .privateMessage : .message, channel: channel, nick: sender, text)
    }

    /// `seconds` as people say it: `45 s`, `3 min 5 s`, `2 h 10 min`.
    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min \(seconds % 60) s"
        default: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        }
    }

    /// The command and argument of a CTCP message (`\u{1}VERSION\u{1}`), or `nil` for plain
    /// text. The closing `\u{1}` is optional, as some clients leave it out.
    static func ctcp(_ text: String) -> (command: String, argument: String)? {
        guard text.hasPrefix("\u{1}") else { return nil }
        var body = text.dropFirst()
        if body.hasSuffix("\u{1}") { body = body.dropLast() }
        guard !body.isEmpty else { return nil }
        let command = body.prefix { $0 != " " }
        return (command.uppercased(), String(body.dropFirst(command.count).drop { $0 == " " }))
    }
}

extension IRCMessage {
    /// Whether this is a numeric reply (a three-digit command).
    var isNumericReply: Bool {
        command.count == 3 && command.allSatisfy(\.isNumber)
    }

    /// Whether this is an error numeric (`4xx` or `5xx`).
    var isErrorReply: Bool {
        isNumericReply && (command.hasPrefix("4") || command.hasPrefix("5"))
    }

    /// Whether this numeric refuses something: an error, or one of the `9xx` some servers
    /// use for their own refusals (InspIRCd's `926` for a forbidden channel).
    var isRefusal: Bool {
        isErrorReply || (isNumericReply && command.hasPrefix("9"))
    }
}

extension String {
    /// `KEY=value` split at the first `=`; `nil` value when there is none.
    func splitKeyValue() -> (String, String?) {
        guard let equals = firstIndex(of: "=") else { return (self, nil) }
        return (String(self[..<equals]), String(self[index(after: equals)...]))
    }

    /// An ISUPPORT value with its `\xHH` escapes decoded.
    func replacingHexEscapes() -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4, utf8.dropFirst().first == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: utf8.dropFirst(2).prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
