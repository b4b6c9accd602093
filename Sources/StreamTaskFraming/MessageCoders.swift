//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Turns a value into the bytes of one message, as Combine's `TopLevelEncoder` does with
/// `Data` for output (which Linux lacks). `JSONEncoder` and `PropertyListEncoder` conform; so
/// can any encoder of your own, and on Darwin any of Combine's, wrapped in
/// `CombineMessageEncoder`.
public protocol MessageEncoder {
    func encode<Value: Encodable>(_ value: Value) throws -> Data
}

/// Makes a value of the bytes of one message, as Combine's `TopLevelDecoder` does with `Data`
/// for input. `JSONDecoder` and `PropertyListDecoder` conform; so can any decoder of your own,
/// and on Darwin any of Combine's, wrapped in `CombineMessageDecoder`.
public protocol MessageDecoder {
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

extension JSONEncoder: MessageEncoder {}
extension JSONDecoder: MessageDecoder {}
extension PropertyListEncoder: MessageEncoder {}
extension PropertyListDecoder: MessageDecoder {}

/// A message that arrived whole but did not decode: which one it was, and why.
public struct MessageDecodingError: Error, Sendable, CustomStringConvertible {
    /// Its place among the messages the sequence read, from 1.
    public let position: Int
    /// How many bytes the message had.
    public let byteCount: Int
    /// The decoder's error.
    public let underlyingError: any Error

    public var description: String {
        "message \(position) (\(byteCount) bytes) did not decode: \(underlyingError)"
    }
}

#if canImport(Combine)
import Combine

/// Any of Combine's encoders whose output is `Data`, as a ``MessageEncoder``: pass
/// `CombineMessageEncoder(encoder)` where a task's typed-message calls take an encoder.
/// (`JSONEncoder` and `PropertyListEncoder` need no wrapping.)
public struct CombineMessageEncoder<Encoder: TopLevelEncoder>: MessageEncoder where Encoder.Output == Data {
    /// The encoder that does the work.
    public let encoder: Encoder

    public init(_ encoder: Encoder) {
        self.encoder = encoder
    }

    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder.encode(value)
    }
}

/// Any of Combine's decoders whose input is `Data`, as a ``MessageDecoder``: pass
/// `CombineMessageDecoder(decoder)` where a task's typed-message calls take a decoder.
/// (`JSONDecoder` and `PropertyListDecoder` need no wrapping.)
public struct CombineMessageDecoder<Decoder: TopLevelDecoder>: MessageDecoder where Decoder.Input == Data {
    /// The decoder that does the work.
    public let decoder: Decoder

    public init(_ decoder: Decoder) {
        self.decoder = decoder
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}

extension CombineMessageEncoder: Sendable where Encoder: Sendable {}
extension CombineMessageDecoder: Sendable where Decoder: Sendable {}
#endif
