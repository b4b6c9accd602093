//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import ChatProtocol

/// Cutting a byte stream into lines, whatever the peer sends.
@Suite struct IRCLineFramerTests {
    private func lines(_ framer: inout IRCLineFramer) -> [IRCLineFramer.Event] {
        var events: [IRCLineFramer.Event] = []
        while let event = framer.next() { events.append(event) }
        return events
    }

    @Test func linesEndAtLFWithOneCRStripped() {
        var framer = IRCLineFramer()
        framer.append(Array("NICK a\r\nUSER b\nPING\r\r\npartial".utf8))
        #expect(
            lines(&framer) == [.line(Array("NICK a".utf8)), .line(Array("USER b".utf8)), .line(Array("PING\r".utf8))])
        #expect(framer.bufferedByteCount == 7)
        framer.append(Array(" line\r\n".utf8))
        #expect(lines(&framer) == [.line(Array("partial line".utf8))])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func aLineOf512BytesWithCRLFPassesAndOneMoreByteDoesNot() {
        var framer = IRCLineFramer()
        let fits = String(repeating: "a", count: 510)
        framer.append(Array((fits + "\r\n" + fits + "a\r\nok\r\n").utf8))
        #expect(lines(&framer) == [.line(Array(fits.utf8)), .tooLong, .line(Array("ok".utf8))])
    }

    /// An endless line is reported once and skipped as it arrives: the buffer stays bounded.
    @Test func anEndlessLineIsReportedOnceAndNeverGrowsTheBuffer() {
        var framer = IRCLineFramer()
        var events: [IRCLineFramer.Event] = []
        for _ in 0..<1000 {
            framer.append([UInt8](repeating: 0x41, count: 1000))
            events += lines(&framer)
            #expect(framer.bufferedByteCount <= 1000 + 512)
        }
        framer.append(Array("tail of it\r\nPING next\r\n".utf8))
        events += lines(&framer)
        #expect(events == [.tooLong, .line(Array("PING next".utf8))])
    }

    @Test func taggedLinesMayBeLongerByTheTagSection() {
        var framer = IRCLineFramer()
        let tags = "@" + String(repeating: "t", count: 4000) + " "
        let message = "PRIVMSG #c :" + String(repeating: "m", count: 400)
        framer.append(Array((tags + message + "\r\n").utf8))
        #expect(lines(&framer) == [.line(Array((tags + message).utf8))])
    }
}
