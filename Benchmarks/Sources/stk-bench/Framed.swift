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
import NIOExtras
import NIOPosix
import StreamTaskKit

/// Framed messages one way: the client sends `count` messages of 64 bytes, each framed and
/// each send awaited, and the server reads them one message at a time. Returns messages per
/// second, as the reader received them.
enum Framed {
    static let size = 64

    /// The library's framer: a 4-byte big-endian length, as swift-nio-extras' decoder reads.
    static let lengthPrefixed = LengthPrefixedFramer(
        prefix: FramingInteger(width: 4, byteOrder: .big), maximumMessageLength: 1 << 16)

    /// `send(_:framedBy:)` and `readMessage(framedBy:)`, placed as `placement` says.
    static func library(count: Int, session: StreamSession, placement: Placement) async throws -> Double {
        try await LibraryPair.with(session: session) { pair in
            let message = ByteBuffer(repeating: 0x6D, count: size)
            let started = now()
            let reader = Task(executorPreference: placement.executor(for: pair.server)) {
                for _ in 0..<count {
                    guard
                        let received = try await pair.server.readMessage(
                            framedBy: lengthPrefixed, timeout: operationTimeout)
                    else { throw BenchError("end of stream") }
                    guard received.readableBytes == size else {
                        throw BenchError("a message of \(received.readableBytes) bytes")
                    }
                }
            }
            try await withTaskExecutorPreference(placement.executor(for: pair.client)) {
                for _ in 0..<count {
                    try await pair.client.send(message, framedBy: lengthPrefixed, timeout: operationTimeout)
                }
            }
            try await reader.value
            return Double(count) / (Double(now() - started) / 1e9)
        }
    }

    /// `NIOAsyncChannel` with swift-nio-extras' `LengthFieldPrepender` in the client's pipeline
    /// and `LengthFieldBasedFrameDecoder` in the server's: the same messages, as a SwiftNIO user
    /// would frame them.
    static func asyncChannel(count: Int, placement: AsyncChannelPlacement) async throws -> Double {
        try await AsyncChannelPairs.with(
            prepareClient: { channel in
                try channel.pipeline.syncOperations.addHandler(LengthFieldPrepender(lengthFieldBitLength: .fourBytes))
            },
            prepareServer: { channel in
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes)))
            }
        ) { pairs in
            let (client, server) = pairs[0]
            let started = now()
            let reader = Task(executorPreference: placement.executor(for: server)) {
                var received = 0
                for try await message in server.inbound {
                    guard message.readableBytes == size else {
                        throw BenchError("a message of \(message.readableBytes) bytes")
                    }
                    received += 1
                    if received == count { return }
                }
                throw BenchError("end of stream after \(received) messages")
            }
            try await withTaskExecutorPreference(placement.executor(for: client)) {
                let message = ByteBuffer(repeating: 0x6D, count: size)
                for _ in 0..<count { try await client.outbound.write(message) }
            }
            try await reader.value
            return Double(count) / (Double(now() - started) / 1e9)
        }
    }

    /// How the line variants read: as messages of `LineFramer`, or with
    /// `readData(upToAndIncluding:)`.
    enum LineReading: String, CaseIterable {
        case framer = "library_lines"
        case delimiter = "library_delimiter"
    }

    /// Lines of 64 bytes, LF included, written alike (prepared buffers) and read as `reading`
    /// says, from the cooperative pool: the line framer against the delimiter read.
    static func lines(count: Int, session: StreamSession, reading: LineReading) async throws -> Double {
        try await LibraryPair.with(session: session) { pair in
            var line = ByteBuffer(repeating: 0x6C, count: size - 1)
            line.writeInteger(UInt8(ascii: "\n"))
            let framer = LineFramer(ending: .lf, maximumLineLength: 1024)
            let newline = Data("\n".utf8)
            let started = now()
            let reader = Task {
                for _ in 0..<count {
                    switch reading {
                    case .framer:
                        guard
                            let received = try await pair.server.readMessage(
                                framedBy: framer, timeout: operationTimeout),
                            received.readableBytes == size - 1
                        else { throw BenchError("a short line") }
                    case .delimiter:
                        guard
                            let received = try await pair.server.readData(
                                upToAndIncluding: newline, maxLength: 1024, timeout: operationTimeout),
                            received.count == size
                        else { throw BenchError("a short line") }
                    }
                }
            }
            for _ in 0..<count { try await pair.client.write(line, timeout: operationTimeout) }
            try await reader.value
            return Double(count) / (Double(now() - started) / 1e9)
        }
    }
}
