//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOHTTP1

/// Sits in front of a data task's HTTP response decoder and stops the bytes at the response
/// head, so that nothing after the head is decoded before the owner has decided what to do.
///
/// SwiftNIO's decoder parses whatever it is given: handed a whole packet, it would go on past
/// the head of a `200` into what the owner may want as the first bytes of a stream. So until the
/// final response head has been decoded, the gate passes bytes on one line at a time (each
/// slice ends with a line feed, and a head ends with an empty line; a line's start is passed on
/// before its end has come), and holds everything after the line that completed the head. The
/// gate does not parse HTTP: it only cuts at line feeds, and ends a head's line that has a bare
/// line feed with a carriage return too, since SwiftNIO's decoder takes only CRLF and RFC 9112
/// (section 2.2) lets a recipient accept a lone LF in the start line and fields.
///
/// Then either `release()` lets the held bytes through to the decoder (the body is wanted), or
/// the gate is removed from the pipeline after the HTTP handlers, and passes the held bytes,
/// then an end of stream that came with them, to the next handler: the stream task's. Nothing
/// is dropped and nothing is reordered.
final class HTTPResponseHeadGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Passing bytes on line by line, until the final response head has been decoded.
        case beforeHead
        /// The head is out: holding what follows until the owner decides.
        case holding
        /// The body is wanted: everything passes through.
        case passing
        /// More than `headLimit` bytes came before a final head: the rest is dropped.
        case refused
    }

    /// The most bytes passed on before the final response head: SwiftNIO's decoder limits
    /// header fields (80 KiB) but reads a status line, or informational heads, without end.
    static let headLimit = 128 * 1024
    private var bytesBeforeHead = 0
    /// Whether the last byte passed on before the head was a carriage return.
    private var passedCarriageReturn = false

    private var state = State.beforeHead
    private var held = ByteBuffer()
    private var inputClosed = false
    private var context: ChannelHandlerContext?

    /// Bytes held after the head, for tests.
    var heldByteCount: Int { held.readableBytes }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// The decoder produced the final response head: hold whatever comes after it.
    func headArrived() {
        if state == .beforeHead { state = .holding }
    }

    /// Whether bytes are still passed line by line or held: neither released nor refused.
    private var isGating: Bool { state == .beforeHead || state == .holding }

    /// Lets the held bytes, and everything after them, through to the decoder.
    func release() {
        guard isGating, let context else { return }
        state = .passing
        flushHeld(context: context)
    }

    /// Leaves the pipeline, handing the bytes held after the head to the next handler.
    func leave(on loop: any EventLoop) {
        loop.preconditionInEventLoop()
        guard let context else { return }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        switch state {
        case .passing:
            context.fireChannelRead(data)
        case .refused:
            break
        case .holding:
            held.writeBuffer(&bytes)
        case .beforeHead:
            held.writeBuffer(&bytes)
            passLines(context: context)
        }
    }

    /// Passes held bytes on, each slice ending with a line feed, until the head has arrived.
    private func passLines(context: ChannelHandlerContext) {
        while state == .beforeHead {
            let view = held.readableBytesView
            guard let lineFeed = view.firstIndex(of: UInt8(ascii: "\n")) else {
                // No line end: a head ends with one, so these bytes all belong to it and the
                // decoder may have them now, where its header limit applies. Held back, an
                // endless line would grow without bound and be searched again on every read.
                if held.readableBytes > 0 {
                    pass(held.readSlice(length: held.readableBytes)!, context: context)
                }
                break
            }
            pass(held.readSlice(length: view.distance(from: view.startIndex, to: lineFeed) + 1)!, context: context)
        }
        if held.readableBytes == 0 {
            held.clear()
        }
    }

    /// Passes `slice` (of the head) on, unless the head has grown past `headLimit`.
    private func pass(_ slice: ByteBuffer, context: ChannelHandlerContext) {
        bytesBeforeHead += slice.readableBytes
        guard bytesBeforeHead <= Self.headLimit else {
            state = .refused
            held.clear()
            context.fireErrorCaught(HTTPParserError.headerOverflow)
            return
        }
        let line = Self.endingInCRLF(slice, afterCarriageReturn: passedCarriageReturn)
        passedCarriageReturn = slice.readableBytesView.last == UInt8(ascii: "\r")
        context.fireChannelRead(wrapInboundOut(line))
    }

    /// `slice`, with a carriage return put before its final line feed if it has none (the byte
    /// before the slice was one if `afterCarriageReturn`). Slices that need nothing are returned
    /// as they are, without a copy.
    static func endingInCRLF(_ slice: ByteBuffer, afterCarriageReturn: Bool) -> ByteBuffer {
        let view = slice.readableBytesView
        guard view.last == UInt8(ascii: "\n") else { return slice }
        let carriageReturnBefore =
            view.count >= 2
            ? view[view.index(view.endIndex, offsetBy: -2)] == UInt8(ascii: "\r")
            : afterCarriageReturn
        if carriageReturnBefore { return slice }
        var line = slice
        line.moveWriterIndex(to: line.writerIndex - 1)
        var fixed = ByteBuffer()
        fixed.reserveCapacity(line.readableBytes + 2)
        fixed.writeBuffer(&line)
        fixed.writeString("\r\n")
        return fixed
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The channel reads only when asked: keep asking until the head is complete.
        if state == .beforeHead { context.read() }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            switch state {
            case .passing, .refused:
                break
            case .beforeHead:
                // The stream ended within the head: let the decoder see all of it, then the end.
                state = .passing
                flushHeld(context: context)
            case .holding:
                // Hold it until the bytes before it have been passed on.
                inputClosed = true
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        if isGating {
            state = .passing
            flushHeld(context: context)
        }
        context.leavePipeline(removalToken: removalToken)
    }

    private func flushHeld(context: ChannelHandlerContext) {
        if held.readableBytes > 0 {
            let bytes = held
            held = ByteBuffer()
            context.fireChannelRead(wrapInboundOut(bytes))
        }
        // The handler after us may be waiting for the end of a burst to ask for more.
        context.fireChannelReadComplete()
        if inputClosed {
            inputClosed = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension HTTPResponseHeadGate: Sendable {}
