//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOFoundationCompat
import StreamTaskCore

extension StreamTask {
    /// Reads one message framed by `framer` and decodes a `Value` of it with `decoder`.
    ///
    /// - Returns: The value, or `nil` at the end of the stream.
    /// - Throws: What `readMessage(framedBy:timeout:)` throws, or a
    ///   `MessageDecodingError` (position 1) when the message arrived but did not decode: it
    ///   was read, and the next read gets the message after it.
    public func readMessage<Value: Decodable, Framer: MessageFramer>(
        _ type: Value.Type,
        framedBy framer: Framer,
        decoder: some MessageDecoder,
        timeout: TimeInterval
    ) async throws -> Value? where Framer.Message == ByteBuffer {
        guard let message = try await readMessage(framedBy: framer, timeout: timeout) else { return nil }
        return try decoder.decodeMessage(type, from: message, position: 1)
    }

    /// Encodes `value` with `encoder`, frames it with `framer` and writes it, as
    /// `send(_:framedBy:timeout:)` does. An encoder's error is thrown as it is, with nothing
    /// sent.
    public func send<Value: Encodable, Framer: MessageFramer>(
        _ value: Value,
        framedBy framer: Framer,
        encoder: some MessageEncoder,
        timeout: TimeInterval
    ) async throws where Framer.Message == ByteBuffer {
        let data = try encoder.encode(value)
        try await send(ByteBuffer(data: data), framedBy: framer, timeout: timeout)
    }

    /// The values the stream brings, one message each, framed by `framer` and decoded with
    /// `decoder`, read one at a time as the loop asks for the next.
    ///
    /// A message that does not decode throws a `MessageDecodingError` naming its position,
    /// and the sequence goes on: an iterator asked again reads the message after it. (A
    /// `for try await` loop ends at the throw; keep an iterator to go on.) With
    /// `endsOnDecodingError`, the sequence ends there instead. A read's own failure (a
    /// timeout, a refused frame, a reset) ends it.
    public func messages<Value: Decodable, Framer: MessageFramer, Decoder: MessageDecoder & Sendable>(
        of type: Value.Type,
        framedBy framer: Framer,
        decoder: Decoder,
        endsOnDecodingError: Bool = false,
        timeout: TimeInterval = 0
    ) -> StreamTaskTypedMessages<Value, Framer, Decoder> where Framer.Message == ByteBuffer {
        StreamTaskTypedMessages(
            messages: messages(framedBy: framer, timeout: timeout), decoder: decoder,
            endsOnDecodingError: endsOnDecodingError)
    }
}

/// The values a task's stream brings, a message each: see
/// `StreamTask.messages(of:framedBy:decoder:endsOnDecodingError:timeout:)`.
public struct StreamTaskTypedMessages<Value: Decodable, Framer: MessageFramer, Decoder: MessageDecoder & Sendable>:
    AsyncSequence, Sendable
where Framer.Message == ByteBuffer {
    public typealias Element = Value

    let messages: StreamTaskMessages<Framer>
    let decoder: Decoder
    let endsOnDecodingError: Bool

    public struct AsyncIterator: AsyncIteratorProtocol {
        var messages: StreamTaskMessages<Framer>.AsyncIterator
        let decoder: Decoder
        let endsOnDecodingError: Bool
        var position = 0
        var finished = false

        public mutating func next() async throws -> Value? {
            guard !finished, let message = try await messages.next() else { return nil }
            position += 1
            do {
                return try decoder.decodeMessage(Value.self, from: message, position: position)
            } catch {
                if endsOnDecodingError { finished = true }
                throw error
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            messages: messages.makeAsyncIterator(), decoder: decoder, endsOnDecodingError: endsOnDecodingError)
    }
}

extension MessageDecoder {
    /// A `Value` of `message`, the `position`th; its failure as a `MessageDecodingError`.
    func decodeMessage<Value: Decodable>(_ type: Value.Type, from message: ByteBuffer, position: Int) throws -> Value {
        do {
            return try decode(type, from: Data(buffer: message, byteTransferStrategy: .noCopy))
        } catch {
            throw MessageDecodingError(position: position, byteCount: message.readableBytes, underlyingError: error)
        }
    }
}
