//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Renders ``ChatDisplayLine``s as terminal text: a timestamp, the channel when it is not the
/// current one, the sender, and ANSI colours when the output is a terminal.
public struct ChatFormatter: Sendable {
    /// Whether to use ANSI colours.
    public var colors: Bool
    /// Whether to start each line with `HH:mm:ss`.
    public var timestamps: Bool

    /// A formatter.
    public init(colors: Bool, timestamps: Bool = true) {
        self.colors = colors
        self.timestamps = timestamps
    }

    /// `line` as shown at `date`, with `currentChannel` the one plain text goes to.
    public func render(_ line: ChatDisplayLine, at date: Date = Date(), currentChannel: String? = nil) -> String {
        var line = line
        line.text = Self.printable(Self.withoutFormatting(line.text))
        line.nick = line.nick.map(Self.printable)
        line.channel = line.channel.map(Self.printable)
        var out = ""
        if timestamps { out += paint(Self.time(date), .dim) + " " }
        let channel = line.channel.flatMap { $0.lowercased() == currentChannel?.lowercased() ? nil : $0 }
        let channelPrefix = channel.map { paint("[\($0)]", .dim) + " " } ?? ""
        let nick = line.nick ?? ""
        switch line.kind {
        case .message:
            out += channelPrefix + paint("<\(nick)>", nickColor(nick)) + " " + line.text
        case .privateMessage:
            out += paint("*\(nick)*", nickColor(nick)) + " " + line.text
        case .own:
            out += channelPrefix + paint("<\(nick)>", .bold) + " " + line.text
        case .action:
            out += channelPrefix + paint("* \(nick)", nickColor(nick)) + " " + line.text
        case .notice:
            out += channelPrefix + paint("-\(nick.isEmpty ? "server" : nick)-", .magenta) + " " + line.text
        case .presence:
            out += paint("--- " + line.text, .cyan)
        case .info:
            out += paint("*** ", .yellow) + line.text
        case .error:
            out += paint("!!! " + line.text, .red)
        }
        return out
    }

    /// `HH:mm:ss` in local time.
    static func time(_ date: Date) -> String {
        let components = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(two(components.hour)):\(two(components.minute)):\(two(components.second))"
    }

    /// `text` without IRC formatting codes: bold, italics, underline, strikethrough, monospace,
    /// reverse and reset, and colours (`^C` with up to two digits, then a comma and up to two
    /// more; `^D` with six hex digits, then a comma and six more). Other controls stay, for
    /// ``printable(_:)`` to show.
    static func withoutFormatting(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        /// How many of the scalars from `start` (at most `limit`) pass `test`.
        func run(from start: Int, limit: Int, _ test: (Character) -> Bool) -> Int {
            var count = 0
            while count < limit, start + count < scalars.count, test(Character(scalars[start + count])) { count += 1 }
            return count
        }
        /// Skips a colour's digits: a foreground, then a comma and a background only if both
        /// are there (a comma after a colour code may be text).
        func skipColour(length: Int, _ isDigit: (Character) -> Bool) {
            let foreground = run(from: index, limit: length, isDigit)
            index += foreground
            if foreground > 0, index < scalars.count, scalars[index] == ",",
                run(from: index + 1, limit: 1, isDigit) == 1
            {
                index += 1 + run(from: index + 1, limit: length, isDigit)
            }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x02, 0x0F, 0x11, 0x16, 0x1D, 0x1E, 0x1F:
                continue
            case 0x03:
                skipColour(length: 2) { $0.isASCII && $0.isNumber }
            case 0x04:
                skipColour(length: 6) { $0.isHexDigit }
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` with control characters shown as `^X`, so that a peer cannot move the cursor,
    /// clear the screen or change colours with escape sequences.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "^" + String(UnicodeScalar(UInt8(scalar.value ^ 0x40)))
            } else if (0x80..<0xA0).contains(scalar.value) {
                out += "?"  // C1 controls, which some terminals also obey
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    enum Color: String {
        case dim = "2", bold = "1", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    }

    private func paint(_ text: String, _ color: Color) -> String {
        colors ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// The same colour for the same nick every time.
    private func nickColor(_ nick: String) -> Color {
        let palette: [Color] = [.green, .blue, .magenta, .cyan, .yellow, .red]
        let sum = nick.lowercased().utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }
        return palette[sum % palette.count]
    }
}
