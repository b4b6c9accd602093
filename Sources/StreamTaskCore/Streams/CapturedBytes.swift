//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension StreamTask {
    /// The incoming side of a captured connection (``StreamTask/captureByteStreams(timeout:)``):
    /// chunks of bytes as they arrive, ending at the peer's end of stream.
    ///
    /// Each step reads what has arrived (at most ``chunkSize`` bytes) and suspends without
    /// blocking a thread while nothing has. Iterate it once.
    public struct CapturedBytes: AsyncSequence, Sendable {
        public typealias Element = Data

        let connection: CapturedConnection
        /// The most bytes one chunk holds.
        public var chunkSize = 64 * 1024

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(connection: connection, chunkSize: chunkSize)
        }

        /// Steps through the chunks.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let connection: CapturedConnection
            let chunkSize: Int
            var ended = false

            /// The next chunk, or `nil` at the end of the stream.
            ///
            /// - Throws: The ``StreamTaskError`` the connection failed with.
            public mutating func next() async throws -> Data? {
                guard !ended else { return nil }
                let (data, atEOF) = try await connection.read(maxLength: chunkSize)
                if atEOF { ended = true }
                return data.isEmpty && atEOF ? nil : data
            }
        }
    }

    /// The outgoing side of a captured connection (``StreamTask/captureByteStreams(timeout:)``).
    public struct CapturedWriter: Sendable {
        let connection: CapturedConnection

        /// Writes `data`, returning once every byte has been handed to the kernel.
        public func write(_ data: Data) async throws {
            try await connection.write(data)
        }

        /// Sends the end of the stream once earlier writes are done; reading goes on.
        public func finish() {
            connection.closeWrite()
        }
    }
}
