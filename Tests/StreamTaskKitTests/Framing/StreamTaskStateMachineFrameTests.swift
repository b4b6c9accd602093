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

/// Reads of whole frames in the machine, driven as a value.
@Suite struct StreamTaskStateMachineFrameTests {
    func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    /// Frames of a one-byte length, then that many bytes; at most 100 bytes in all.
    let lengthPrefixed = FrameScan(maxLength: 100) { bytes in
        guard let length = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return nil }
        guard length < 100 else { throw StreamTaskError(.invalidFrame, "too long") }
        return 1 + Int(length)
    }

    func reads(_ actions: StreamTaskStateMachine.Actions) -> [[UInt8]] {
        actions.compactMap {
            if case .succeedRead(_, let buffer, _, _) = $0 { return Array(buffer.readableBytesView) }
            return nil
        }
    }

    func failures(_ actions: StreamTaskStateMachine.Actions) -> [StreamTaskError.Code] {
        actions.compactMap {
            if case .fail(_, let error, _) = $0 { return error.code }
            return nil
        }
    }

    func asksForInput(_ actions: StreamTaskStateMachine.Actions) -> Bool {
        actions.contains { if case .requestInput = $0 { true } else { false } }
    }

    @Test func aFrameReadTakesExactlyTheFrameAndLeavesTheRest() {
        var machine = StreamTaskStateMachine.connectedForTests()
        #expect(reads(machine.enqueue(.readFrame(lengthPrefixed), id: id(1))).isEmpty)
        #expect(reads(machine.receivedPass(ByteBuffer(bytes: [3, 0x61]))).isEmpty, "two of its four bytes")
        #expect(reads(machine.receivedPass(ByteBuffer(bytes: [0x62, 0x63, 2, 0x64]))) == [[3, 0x61, 0x62, 0x63]])
        #expect(machine.bufferedByteCount == 2, "the next frame's start stays buffered")
        #expect(reads(machine.enqueue(.readFrame(lengthPrefixed), id: id(2))).isEmpty)
        #expect(reads(machine.receivedPass(ByteBuffer(bytes: [0x65]))) == [[2, 0x64, 0x65]])
    }

    @Test func inputKeepsComingPastTheHighWaterMarkForAFrameThatNeedsIt() {
        // The high-water mark is 4 bytes; a frame of 11 is asked for until all of it is there.
        var machine = StreamTaskStateMachine.connectedForTests(highWaterMark: 4)
        _ = machine.enqueue(.readFrame(lengthPrefixed), id: id(1))
        _ = machine.received(ByteBuffer(bytes: [10, 1, 2, 3, 4, 5]))
        #expect(asksForInput(machine.receiveCompleted()), "6 of the frame's 11 bytes are buffered")
        _ = machine.received(ByteBuffer(bytes: [6, 7, 8, 9, 10]))
        #expect(reads(machine.receiveCompleted()) == [[10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
    }

    @Test func aRefusedFrameFailsTheReadAndLeavesTheBytes() {
        var machine = StreamTaskStateMachine.connectedForTests()
        _ = machine.enqueue(.readFrame(lengthPrefixed), id: id(1))
        #expect(failures(machine.receivedPass(ByteBuffer(bytes: [200, 1, 2]))) == [.invalidFrame])
        #expect(machine.bufferedByteCount == 3)
        #expect(reads(machine.enqueue(.read(minLength: 3, maxLength: 3), id: id(2))) == [[200, 1, 2]])
    }

    @Test func noFrameWithinTheMaximumFailsTheRead() {
        let endless = FrameScan(maxLength: 8) { _ in nil }
        var machine = StreamTaskStateMachine.connectedForTests()
        _ = machine.enqueue(.readFrame(endless), id: id(1))
        #expect(failures(machine.receivedPass(ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7]))).isEmpty)
        #expect(failures(machine.receivedPass(ByteBuffer(bytes: [8]))) == [.invalidFrame])
        #expect(machine.bufferedByteCount == 8)
    }

    @Test func atTheEndTheReadGetsWhatIsLeft() {
        var machine = StreamTaskStateMachine.connectedForTests()
        _ = machine.enqueue(.readFrame(lengthPrefixed), id: id(1))
        _ = machine.receivedPass(ByteBuffer(bytes: [5, 1]))
        let actions = machine.inputEnded()
        let ends = actions.compactMap {
            if case .succeedRead(_, let buffer, let atEOF, _) = $0 { return (Array(buffer.readableBytesView), atEOF) }
            return nil
        }
        #expect(ends.count == 1)
        #expect(ends.first?.0 == [5, 1])
        #expect(ends.first?.1 == true)
    }

    @Test func aWholeFrameBufferedIsTakenAtOnceOffTheLoop() {
        var machine = StreamTaskStateMachine.connectedForTests()
        _ = machine.receivedPass(ByteBuffer(bytes: [1, 9, 2]))
        let taken = machine.readAtOnce(.readFrame(lengthPrefixed))
        #expect(taken.map { Array($0.bytes.readableBytesView) } == [1, 9])
        #expect(machine.readAtOnce(.readFrame(lengthPrefixed)) == nil, "half a frame is not taken at once")
        #expect(machine.bufferedByteCount == 1)
    }

    @Test func aFrameMaximumBelowOneIsRefused() {
        var machine = StreamTaskStateMachine.connectedForTests()
        let actions = machine.enqueue(.readFrame(FrameScan(maxLength: 0) { _ in 1 }), id: id(1))
        #expect(failures(actions) == [.invalidArgument])
    }
}
