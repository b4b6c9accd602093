//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Cuts a byte stream into IRC lines (Protocol.md, "Lines"), holding at most one line's worth
/// of bytes however the peer behaves.
///
/// Feed it whatever a read returned with ``append(_:)``, then take lines with ``next()``
/// until it returns `nil`. A line ends at LF, and one CR directly before the LF is stripped.
/// A line longer than the limit is reported once as ``Event/tooLong`` and its bytes up to the
/// next LF are skipped as they arrive, so an endless line never grows the buffer.
///
/// ```swift
/// var framer = IRCLineFramer()
/// framer.append(Array("NICK alice\r\nUSER al".utf8))
/// framer.next()  // .line("NICK alice")
/// framer.next()  // nil: "USER al" waits for the rest of its line
/// ```
public struct IRCLineFramer: Sendable {
    /// What the framer found in the stream.
    public enum Event: Sendable, Hashable {
        /// One line, without its CR LF.
        case line([UInt8])
        /// A line longer than the limit; it has been (or is being) skipped.
        case tooLong
    }

    /// The most bytes a line may have, its CR LF included.
    public let maxLineLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Set while skipping the rest of an over-long line: bytes are dropped until the next LF.
    private var skipping = false

    /// A framer for lines of at most `maxLineLength` bytes, CR LF included. A line with tags
    /// (`@…`) may be longer by the tag section (``IRCLimits/tagSectionLength``).
    public init(maxLineLength: Int = IRCLimits.lineLength) {
        self.maxLineLength = maxLineLength
    }

    /// Bytes received but not yet returned as a line.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next line or over-long line, or `nil` when the bytes buffered hold no complete line.
    public mutating func next() -> Event? {
        while true {
            let lf = buffer[start...].firstIndex(of: 0x0A)
            if skipping {
                guard let lf else {
                    start = buffer.count
                    return nil
                }
                start = lf + 1
                skipping = false
                continue
            }
            guard let lf else {
                if bufferedByteCount > limit(startingWith: buffer[start...].first) {
                    start = buffer.count
                    skipping = true
                    return .tooLong
                }
                return nil
            }
            var end = lf
            if end > start && buffer[end - 1] == 0x0D { end -= 1 }
            let length = lf + 1 - start
            let line = Array(buffer[start..<end])
            start = lf + 1
            if length > limit(startingWith: line.first) { return .tooLong }
            return .line(line)
        }
    }

    /// The most bytes a line may have, LF included: tagged lines may add the tag section.
    private func limit(startingWith first: UInt8?) -> Int {
        first == UInt8(ascii: "@") ? maxLineLength + IRCLimits.tagSectionLength : maxLineLength
    }
}
