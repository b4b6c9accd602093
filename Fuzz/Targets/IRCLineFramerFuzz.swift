//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `IRCLineFramer` on any stream cut into any reads: it finds the same lines as a plain split at
// LF would, whatever the chunking, and never holds more than one line's worth of bytes.
//
// Input: byte 0 picks the line limit (1...64 bytes, so over-long lines are easy to reach),
// bytes 1...4 the read sizes, the rest is the stream.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIRCLineFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maxLineLength = 1 + Int(input.byte()) % 64
    let sizes = [input.byte(), input.byte(), input.byte(), input.byte()]
    let stream = input.rest
    let maxChunk = 256

    var framer = IRCLineFramer(maxLineLength: maxLineLength)
    var events: [IRCLineFramer.Event] = []
    for chunk in FuzzInput.chunks(stream, sizes: sizes, maxChunk: maxChunk) {
        framer.append(chunk)
        while let event = framer.next() {
            if case .line(let line) = event {
                require(!line.contains(0x0A), "a line holds LF")
            }
            events.append(event)
        }
        let bound = maxLineLength + IRCLimits.tagSectionLength
        require(framer.bufferedByteCount <= bound, "\(framer.bufferedByteCount) bytes buffered; the limit is \(bound)")
    }
    let expected = referenceEvents(stream, maxLineLength: maxLineLength)
    require(
        events == expected,
        "framed \(events.count) events, a plain split gives \(expected.count): \(events) vs \(expected)")
    return 0
}

/// What the framer must find: each LF-terminated piece is a line (one CR before the LF
/// stripped) or, over the limit, `tooLong`; an unterminated tail over the limit is `tooLong` too.
private func referenceEvents(_ stream: [UInt8], maxLineLength: Int) -> [IRCLineFramer.Event] {
    func limit(_ piece: ArraySlice<UInt8>) -> Int {
        piece.first == UInt8(ascii: "@") ? maxLineLength + IRCLimits.tagSectionLength : maxLineLength
    }
    var events: [IRCLineFramer.Event] = []
    var start = 0
    while start < stream.count {
        guard let lf = stream[start...].firstIndex(of: 0x0A) else {
            if stream.count - start > limit(stream[start...]) { events.append(.tooLong) }
            break
        }
        let piece = stream[start...lf]
        if piece.count > limit(piece) {
            events.append(.tooLong)
        } else {
            var line = Array(stream[start..<lf])
            if line.last == 0x0D { line.removeLast() }
            events.append(.line(line))
        }
        start = lf + 1
    }
    return events
}
