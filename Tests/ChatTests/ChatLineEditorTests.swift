//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import StreamTaskTestSupport
import Testing

@testable import ChatClientCore

/// The input line's decoding of what the keyboard sends: UTF-8, and whatever else a terminal
/// or a paste produces.
@Suite struct ChatLineEditorTests {
    /// A Latin-1 terminal sends `é` as `C3 41`'s kind of bytes: an invalid sequence becomes
    /// U+FFFD and the byte after it stays itself (this used to trap in `Character.init`).
    @Test func anInvalidSequenceAfterTextBecomesAReplacementCharacter() {
        var editor = ChatLineEditor()
        _ = editor.feed(Array("caf".utf8) + [0xC3, 0x41])
        #expect(editor.text == "caf\u{FFFD}A")
        #expect(editor.cursor == editor.characters.count)
    }

    /// A lone Latin-1 byte at the end of a line is ended by Enter, not held back or lost.
    @Test func anUnfinishedSequenceIsEndedByTheNextKey() {
        var editor = ChatLineEditor()
        let outcomes = editor.feed(Array("caf".utf8) + [0xE9, 0x0D])
        #expect(outcomes.last == .submitted("caf\u{FFFD}"))
    }

    /// Valid UTF-8 arrives whole, even one byte per read.
    @Test func validUTF8SplitAcrossReadsIsKept() {
        var editor = ChatLineEditor()
        for byte in "héllo € 𝄞 e\u{301}".utf8 { _ = editor.feed([byte]) }
        #expect(editor.text == "héllo € 𝄞 e\u{301}")
    }

    /// Overlong forms, surrogates and bytes past U+10FFFF are refused one U+FFFD per maximal
    /// subpart, as Unicode's chapter 3 says.
    @Test(
        arguments: [
            ([0xC0, 0xAF], "\u{FFFD}\u{FFFD}"),
            ([0xE0, 0x80, 0xAF], "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xED, 0xA0, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xF4, 0x90, 0x80, 0x80], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
            ([0xE2, 0x82, 0x41], "\u{FFFD}A"),
            ([0xFF, 0xFE, 0x41], "\u{FFFD}\u{FFFD}A"),
        ] as [([UInt8], String)])
    func invalidSequencesBecomeOneReplacementPerMaximalSubpart(bytes: [UInt8], expected: String) {
        var editor = ChatLineEditor()
        _ = editor.feed(bytes)
        #expect(editor.text == expected)
    }

    /// A binary paste never traps, and every byte is accounted for: the line holds only
    /// printable text and U+FFFD.
    @Test func aBinaryPasteNeverTraps() {
        var generator = SplitMix64(seed: 24)
        for _ in 0..<200 {
            var editor = ChatLineEditor()
            let bytes = (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = editor.feed(bytes.filter { $0 >= 0x20 })
            #expect(editor.cursor <= editor.characters.count)
            _ = editor.feed([0x0D])
            #expect(editor.text.isEmpty)
        }
    }
}
