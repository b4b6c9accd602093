//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// What one line typed by the user asks for.
///
/// ```swift
/// ChatInputCommand(parsing: "/join #chat", currentChannel: nil)  // .send([JOIN #chat])
/// ChatInputCommand(parsing: "hello", currentChannel: "#chat")    // .send([PRIVMSG #chat :hello])
/// ```
public enum ChatInputCommand: Sendable, Hashable {
    /// Send these messages to the server.
    case send([IRCMessage])
    /// Make `channel` the one plain text goes to (`/join` of a channel already joined).
    case switchChannel(String)
    /// List the chat servers found on the LAN.
    case listServers
    /// Send again the lines a dropped connection may have lost.
    case resend
    /// Show the help text.
    case help
    /// Leave with this reason, and exit.
    case quit(String?)
    /// Nothing to do (an empty line).
    case none
    /// The line could not be understood; show this to the user.
    case error(String)

    /// The commands and what they do, for ``helpText``.
    static let helpEntries = [
        ("/join #channel[,#other]", "join channels (or switch to one already joined)"),
        ("/part [#channel] [reason]", "leave the current or the given channel"),
        ("/msg <nick|#channel> text", "send a message to someone or somewhere"),
        ("/me <action>", "describe what you do, in the current channel"),
        ("/nick <name>", "change your nickname"),
        ("/names [#channel]", "who is in the current or the given channel"),
        ("/list", "the channels on the server"),
        ("/topic [text]", "show or set the current channel's topic"),
        ("/whois <nick>", "who someone is, and where"),
        ("/away [message]", "mark yourself away (no message: back again)"),
        ("/servers", "the chat servers found on the LAN"),
        ("/resend", "send again the lines a dropped connection may have lost"),
        ("/quote <raw line>", "send a raw IRC line"),
        ("/quit [reason]", "leave and exit"),
        ("anything else", "a message to the current channel"),
    ]

    /// The help text: one line per command, the descriptions in one column.
    public static let helpText: [String] = {
        let width = helpEntries.map(\.0.count).max() ?? 0
        return helpEntries.map { command, text in
            command + String(repeating: " ", count: width - command.count + 2) + text
        }
    }()

    /// Parses one typed line. `currentChannel` is where plain text and `/me` go;
    /// `channelTypes` are the first characters of the server's channel names (its `CHANTYPES`).
    public init(parsing line: String, currentChannel: String?, channelTypes: String = IRCName.defaultChannelTypes) {
        let trimmed = line.trimmingSpaces
        guard !trimmed.isEmpty else {
            self = .none
            return
        }
        guard trimmed.hasPrefix("/"), !trimmed.hasPrefix("//") else {
            // `//text` sends `/text` as a message.
            let text = trimmed.hasPrefix("//") ? String(line.drop { $0 == " " }.dropFirst()) : line
            self = Self.message(text, to: currentChannel)
            return
        }
        let (command, rest) = trimmed.dropFirst().splitOnce()
        switch command.lowercased() {
        case "join", "j":
            guard !rest.isEmpty else {
                self = .error("usage: /join #channel")
                return
            }
            let (channels, key) = rest.splitOnce()
            let names = IRCName.items(of: channels).map { IRCName.channelName($0, types: channelTypes) }
            var parameters = [names.joined(separator: ",")]
            if !key.isEmpty { parameters.append(key) }
            self = .send([IRCMessage(command: "JOIN", parameters: parameters)])
        case "part", "leave":
            var (first, reason) = rest.splitOnce()
            var channel = first
            if !IRCName.isChannel(first, types: channelTypes) {
                channel = currentChannel ?? ""
                reason = rest
            }
            guard !channel.isEmpty else {
                self = .error("usage: /part #channel [reason] (you are in no channel)")
                return
            }
            self = .send([IRCMessage(command: "PART", parameters: reason.isEmpty ? [channel] : [channel, reason])])
        case "msg", "query", "m", "notice":
            let (target, text) = rest.splitOnce()
            guard !target.isEmpty, !text.isEmpty else {
                self = .error("usage: /\(command.lowercased()) <nick|#channel> text")
                return
            }
            let ircCommand = command.lowercased() == "notice" ? "NOTICE" : "PRIVMSG"
            self = .send([IRCMessage(command: ircCommand, parameters: [target, text])])
        case "me":
            guard let currentChannel else {
                self = .error("/me needs a channel: /join one first")
                return
            }
            self = .send([IRCMessage(command: "PRIVMSG", parameters: [currentChannel, "\u{1}ACTION \(rest)\u{1}"])])
        case "nick":
            guard !rest.isEmpty, !rest.contains(" ") else {
                self = .error("usage: /nick <name>")
                return
            }
            self = .send([IRCMessage(command: "NICK", parameters: [rest])])
        case "names":
            let channel = rest.isEmpty ? currentChannel : rest
            self = .send([IRCMessage(command: "NAMES", parameters: channel.map { [$0] } ?? [])])
        case "list":
            self = .send([IRCMessage(command: "LIST", parameters: rest.isEmpty ? [] : [rest])])
        case "topic":
            guard let currentChannel else {
                self = .error("/topic needs a channel: /join one first")
                return
            }
            self = .send([
                IRCMessage(command: "TOPIC", parameters: rest.isEmpty ? [currentChannel] : [currentChannel, rest])
            ])
        case "who":
            guard let mask = rest.isEmpty ? currentChannel : rest else {
                self = .error("usage: /who <#channel|nick>")
                return
            }
            self = .send([IRCMessage(command: "WHO", parameters: [mask])])
        case "whois", "wi":
            guard !rest.isEmpty, !rest.contains(" ") else {
                self = .error("usage: /whois <nick>")
                return
            }
            self = .send([IRCMessage(command: "WHOIS", parameters: [rest])])
        case "away":
            self = .send([IRCMessage(command: "AWAY", parameters: rest.isEmpty ? [] : [rest])])
        case "back":
            self = .send([IRCMessage(command: "AWAY")])
        case "quote", "raw":
            guard let message = try? IRCMessage(parsing: rest) else {
                self = .error("/quote: not a valid IRC line: \(rest)")
                return
            }
            self = .send([message])
        case "servers":
            self = .listServers
        case "resend":
            self = .resend
        case "help", "?":
            self = .help
        case "quit", "exit", "q":
            self = .quit(rest.isEmpty ? nil : rest)
        default:
            self = .error("unknown command /\(command); /help lists them")
        }
    }

    /// Whether the typed `line` makes sense before the server has welcomed us, so it need not
    /// wait for registration: `/nick` (the way out when every nickname tried is taken),
    /// `/quote`, `/quit`, `/help` and `/servers`.
    public static func worksBeforeRegistration(_ line: String) -> Bool {
        guard let command = slashCommand(line) else { return false }
        return ["nick", "quote", "raw"].contains(command) || needsNoServer(line)
    }

    /// Whether the typed `line` is carried out without the server (`/help`, `/servers`) or
    /// ends the session whatever its state (`/quit`), so it never waits for the connection.
    public static func needsNoServer(_ line: String) -> Bool {
        guard let command = slashCommand(line) else { return false }
        return ["quit", "exit", "q", "help", "?", "servers"].contains(command)
    }

    /// The command of a typed `/command …` line, lower-cased; `nil` for text.
    private static func slashCommand(_ line: String) -> String? {
        let trimmed = line.trimmingSpaces
        guard trimmed.hasPrefix("/"), !trimmed.hasPrefix("//") else { return nil }
        return trimmed.dropFirst().splitOnce().0.lowercased()
    }

    private static func message(_ text: String, to channel: String?) -> ChatInputCommand {
        guard let channel else {
            return .error("you are in no channel: /join #channel first, or /msg someone")
        }
        return .send([IRCMessage(command: "PRIVMSG", parameters: [channel, text])])
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// The first word, and the rest after the spaces that follow it.
    func splitOnce() -> (String, String) {
        let text = String(self).trimmingSpaces
        guard let space = text.firstIndex(of: " ") else { return (text, "") }
        return (String(text[..<space]), String(text[space...]).trimmingSpaces)
    }
}
