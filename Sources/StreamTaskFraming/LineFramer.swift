//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import StreamTaskCore

/// Lines: each message is the bytes before a line ending, without it.
///
/// Reading, a line ends at LF; with ``Ending/crlf`` or ``Ending/either``, a CR before the LF is
/// part of the ending too (``Ending/crlf`` and ``Ending/either`` read alike: a protocol that
/// says CRLF meets peers that send LF alone). Writing, ``Ending/lf`` and ``Ending/either`` end
/// a line with LF (``Ending/either`` with CR LF when the line itself ends with a CR), and
/// ``Ending/crlf`` with CR LF.
///
/// A line longer than ``maximumLineLength`` (its ending not counted) fails the read with
/// `StreamTaskError.Code.invalidFrame` and stays buffered (`StreamTask.skipLine(timeout:)`
/// drops it, as a line protocol answering "line too long" does), or, with
/// ``OverlongLines/cut``, arrives in pieces of the maximum length, the last piece ending where
/// the line does. A stream that ends inside a line fails the last read with
/// `StreamTaskError.Code.truncatedFrame`, unless ``acceptsUnendedLastLine``.
public struct LineFramer: MessageFramer {
    /// How lines end.
    public enum Ending: Sendable, Hashable {
        /// LF alone.
        case lf
        /// CR LF, as IRC, SMTP and HTTP/1.1 say; an LF alone ends a line read too.
        case crlf
        /// LF, or CR LF: lines are written with LF.
        case either
    }

    /// What a line longer than the maximum does.
    public enum OverlongLines: Sendable, Hashable {
        /// Fails the read; the bytes stay buffered.
        case fail
        /// Arrives in pieces of the maximum length.
        case cut
    }

    public typealias Message = ByteBuffer

    public let ending: Ending
    /// The longest line, its ending not counted.
    public let maximumLineLength: Int
    public let overlongLines: OverlongLines
    /// Whether bytes left at the end of the stream without a line ending are a last line
    /// rather than a truncated one.
    public let acceptsUnendedLastLine: Bool

    public init(
        ending: Ending = .crlf,
        maximumLineLength: Int = 8192,
        overlongLines: OverlongLines = .fail,
        acceptsUnendedLastLine: Bool = false
    ) {
        precondition(maximumLineLength > 0, "a line's maximum length must be at least 1")
        self.ending = ending
        self.maximumLineLength = maximumLineLength
        self.overlongLines = overlongLines
        self.acceptsUnendedLastLine = acceptsUnendedLastLine
    }

    /// A line at its longest, with a CR LF ending.
    public var maximumFrameLength: Int { maximumLineLength + 2 }

    public func frameLength(in bytes: ByteBuffer) throws -> Int? {
        let view = bytes.readableBytesView
        // A CR LF ending lets a line of the maximum length take two bytes more.
        if let newline = view.prefix(maximumLineLength + 2).firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex + 1
            if length - endingLength(ofLineEndingAt: newline, in: view) <= maximumLineLength { return length }
            return try overlong()
        }
        // No line feed yet: the line may still end within the maximum, or it cannot.
        if view.count <= maximumLineLength { return nil }
        if ending != .lf, view.count == maximumLineLength + 1, view.last == UInt8(ascii: "\r") { return nil }
        return try overlong()
    }

    /// What a line known to be longer than the maximum does: fail, or its next piece.
    private func overlong() throws -> Int {
        switch overlongLines {
        case .fail:
            throw StreamTaskError.invalidFrame(
                "a line is longer than the maximum of \(maximumLineLength) bytes; the bytes stay buffered")
        case .cut:
            return maximumLineLength
        }
    }

    public func message(fromFrame frame: ByteBuffer) throws -> ByteBuffer {
        let view = frame.readableBytesView
        guard let last = view.last, last == UInt8(ascii: "\n") else {
            return frame  // a piece of an overlong line
        }
        let length = view.count - endingLength(ofLineEndingAt: view.endIndex - 1, in: view)
        return frame.getSlice(at: frame.readerIndex, length: length)!
    }

    public func frame(_ message: ByteBuffer, into buffer: inout ByteBuffer) throws {
        guard message.readableBytes <= maximumLineLength else {
            throw StreamTaskError.invalidArgument(
                "a line of \(message.readableBytes) bytes is longer than the maximum of \(maximumLineLength)")
        }
        guard !message.readableBytesView.contains(UInt8(ascii: "\n")) else {
            throw StreamTaskError.invalidArgument("a line to send holds a line feed, which would end it early")
        }
        buffer.writeImmutableBuffer(message)
        // A line that ends with a CR of its own takes CR LF under `either` too: LF alone would
        // make its CR part of the ending.
        let endsWithCR = message.readableBytesView.last == UInt8(ascii: "\r")
        if ending == .crlf || (ending == .either && endsWithCR) { buffer.writeInteger(UInt8(ascii: "\r")) }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    public func messageAtEnd(_ remaining: ByteBuffer) throws -> ByteBuffer {
        guard acceptsUnendedLastLine else {
            throw StreamTaskError(
                .truncatedFrame,
                "the stream ended inside a line: \(remaining.readableBytes) bytes were left without a line ending")
        }
        return remaining
    }

    /// How many bytes of the line ending at `newline` (an LF) are its ending: 2 for a CR LF when
    /// CRs belong to endings, else 1.
    private func endingLength(ofLineEndingAt newline: ByteBufferView.Index, in view: ByteBufferView) -> Int {
        guard ending != .lf, newline > view.startIndex, view[newline - 1] == UInt8(ascii: "\r") else { return 1 }
        return 2
    }
}
