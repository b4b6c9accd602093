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
/// can any encoder of your own.
public protocol MessageEncoder {
    func encode<Value: Encodable>(_ value: Value) throws -> Data
}

/// Makes a value of the bytes of one message, as Combine's `TopLevelDecoder` does with `Data`
/// for input. `JSONDecoder` and `PropertyListDecoder` conform; so can any decoder of your own.
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
