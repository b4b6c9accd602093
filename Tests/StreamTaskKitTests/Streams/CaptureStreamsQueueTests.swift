//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// The `captureStreams` barrier of the operation queue, as a plain value.
@Suite struct CaptureStreamsQueueTests {
    private func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    private func captured(_ actions: StreamTaskStateMachine.Actions) -> [UInt64] {
        actions.compactMap {
            if case .captureStreams(let id, _) = $0 { return id.rawValue }
            return nil
        }
    }

    private func failures(_ actions: StreamTaskStateMachine.Actions) -> [(UInt64, StreamTaskError.Code)] {
        actions.compactMap {
            if case .fail(let id, let error, _) = $0 { return (id.rawValue, error.code) }
            return nil
        }
    }

    private func openQueue() -> StreamTaskStateMachine {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 1024)
        _ = queue.connected()
        return queue
    }

    @Test func waitsForEarlierReadsAndWrites() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 3, maxLength: 3), id: id(1))
        let write = queue.enqueue(.write(ByteBuffer(string: "out")), id: id(2))
        #expect(write.contains { if case .write = $0 { return true } else { return false } })
        #expect(captured(queue.enqueue(.captureStreams, id: id(3))).isEmpty)
        #expect(
            captured(queue.writesCompleted(through: id(2), error: nil).actions).isEmpty, "the read is still waiting")
        let done = queue.receivedPass(ByteBuffer(string: "abc"))
        #expect(captured(done) == [3])
        #expect(queue.streamsCaptured)
    }

    @Test func failsTheOldOwnersLaterOperationsAndAcceptsTheStreams() {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 1024)
        #expect(captured(queue.enqueue(.captureStreams, id: id(1))).isEmpty, "not connected yet")
        _ = queue.enqueue(.read(minLength: 1, maxLength: 1), id: id(2))
        let connected = queue.connected()
        #expect(captured(connected) == [1])
        #expect(failures(connected).map(\.0) == [2])
        #expect(failures(connected).map(\.1) == [.streamsCaptured])

        #expect(failures(queue.enqueue(.write(ByteBuffer(string: "x")), id: id(3))).map(\.1) == [.streamsCaptured])
        let fromStreams = queue.enqueue(.write(ByteBuffer(string: "y")), id: id(4), fromStreams: true)
        #expect(failures(fromStreams).isEmpty)
        #expect(
            fromStreams.contains { if case .write(let id, _, _) = $0 { return id.rawValue == 4 } else { return false } }
        )
    }

    @Test func unreadBytesStayForTheStreams() {
        var queue = openQueue()
        _ = queue.receivedPass(ByteBuffer(string: "buffered"))
        #expect(captured(queue.enqueue(.captureStreams, id: id(1))) == [1])
        #expect(queue.bufferedByteCount == 8)
        let read = queue.enqueue(.read(minLength: 1, maxLength: 100), id: id(2), fromStreams: true)
        let texts = read.compactMap { action -> String? in
            if case .succeedRead(_, let bytes, _, _) = action { return String(buffer: bytes) }
            return nil
        }
        #expect(texts == ["buffered"])
    }

    @Test func aClosedConnectionFailsTheCapture() {
        var queue = openQueue()
        _ = queue.closed(error: StreamTaskError(.connectionReset, "reset"))
        #expect(failures(queue.enqueue(.captureStreams, id: id(1))).map(\.1) == [.connectionReset])
        #expect(!queue.streamsCaptured)
    }
}
