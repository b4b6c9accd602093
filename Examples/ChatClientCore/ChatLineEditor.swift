//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The input line of the terminal UI: the text being typed and the cursor, changed one key at a
/// time. A plain value, so tests press keys without a terminal.
public struct ChatLineEditor: Sendable, Hashable {
    /// What a key did.
    public enum Outcome: Sendable, Hashable {
        /// The line changed (or not); redraw it.
        case edited
        /// Enter: this line was submitted and the editor is empty again.
        case submitted(String)
        /// Ctrl-C, or Ctrl-D on an empty line: the user wants to leave.
        case interrupted
    }

    /// The characters typed so far.
    public private(set) var characters: [Character] = []
    /// Where the cursor is, as an index into ``characters``.
    public private(set) var cursor = 0
    /// Lines submitted before, oldest first, for the up and down arrows.
    public private(set) var history: [String] = []
    private var historyIndex: Int?
    private var decoder = UTF8KeyDecoder()
    private var escape: [UInt8]?

    /// An empty editor.
    public init() {}

    /// The line as text.
    public var text: String { String(characters) }

    /// Feeds bytes read from the terminal (UTF-8, control keys, escape sequences).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Outcome] {
        var outcomes: [Outcome] = []
        for byte in bytes {
            if var sequence = escape {
                sequence.append(byte)
                // ESC [ (params) final-byte, or ESC O final-byte.
                if sequence.count >= 2 && (0x40...0x7E).contains(byte)
                    && !(sequence.count == 2 && (byte == 0x5B || byte == 0x4F))
                {
                    escape = nil
                    handleEscape(sequence)
                    outcomes.append(.edited)
                } else if sequence.count > 16 {
                    escape = nil
                } else {
                    escape = sequence
                }
                continue
            }
            // A key other than a character's next byte ends an unfinished character.
            if byte < 0x80, let replacement = decoder.flush() { insert(replacement, into: &outcomes) }
            switch byte {
            case 0x1B: escape = []
            case 0x0D, 0x0A:
                let line = text
                characters = []
                cursor = 0
                historyIndex = nil
                if !line.isEmpty && history.last != line {
                    history.append(line)
                    if history.count > 500 { history.removeFirst() }
                }
                outcomes.append(.submitted(line))
            case 0x03: outcomes.append(.interrupted)
            case 0x04:
                if characters.isEmpty {
                    outcomes.append(.interrupted)
                } else if cursor < characters.count {
                    characters.remove(at: cursor)
                    outcomes.append(.edited)
                }
            case 0x7F, 0x08:
                if cursor > 0 {
                    cursor -= 1
                    characters.remove(at: cursor)
                }
                outcomes.append(.edited)
            case 0x01: cursor = 0; outcomes.append(.edited)
            case 0x05: cursor = characters.count; outcomes.append(.edited)
            case 0x15:
                characters.removeFirst(cursor)
                cursor = 0
                outcomes.append(.edited)
            case 0x17:
                var start = cursor
                while start > 0 && characters[start - 1] == " " { start -= 1 }
                while start > 0 && characters[start - 1] != " " { start -= 1 }
                characters.removeSubrange(start..<cursor)
                cursor = start
                outcomes.append(.edited)
            case 0x00..<0x20: break
            default:
                for character in decoder.feed(byte) { insert(character, into: &outcomes) }
            }
        }
        return outcomes
    }

    /// Inserts a typed character at the cursor.
    private mutating func insert(_ character: Character, into outcomes: inout [Outcome]) {
        characters.insert(character, at: cursor)
        cursor += 1
        outcomes.append(.edited)
    }

    private mutating func handleEscape(_ sequence: [UInt8]) {
        switch sequence.last {
        case UInt8(ascii: "D"): cursor = max(0, cursor - 1)
        case UInt8(ascii: "C"): cursor = min(characters.count, cursor + 1)
        case UInt8(ascii: "H"): cursor = 0
        case UInt8(ascii: "F"): cursor = characters.count
        case UInt8(ascii: "A"): recall(-1)
        case UInt8(ascii: "B"): recall(1)
        case UInt8(ascii: "~") where sequence == [0x5B, 0x33, 0x7E]:
            if cursor < characters.count { characters.remove(at: cursor) }
        default: break
        }
    }

    private mutating func recall(_ step: Int) {
        guard !history.isEmpty else { return }
        let index = (historyIndex ?? history.count) + step
        guard index >= 0 else { return }
        if index >= history.count {
            historyIndex = nil
            characters = []
        } else {
            historyIndex = index
            characters = Array(history[index])
        }
        cursor = characters.count
    }
}
