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

/// The operation queue as a plain value: every ordering rule without a socket.
@Suite struct StreamTaskStateMachineTests {
    typealias Action = StreamTaskStateMachine.Action

    func id(_ n: UInt64) -> OperationID { OperationID(rawValue: n) }

    func bytes(_ string: String) -> ByteBuffer { ByteBuffer(string: string) }

    /// The reads an action list completed, as (id, text, atEOF).
    func reads(_ actions: StreamTaskStateMachine.Actions) -> [(UInt64, String, Bool)] {
        actions.compactMap {
            if case .succeedRead(let id, let buffer, let atEOF, _) = $0 {
                return (id.rawValue, String(buffer: buffer), atEOF)
            }
            return nil
        }
    }

    func failures(_ actions: StreamTaskStateMachine.Actions) -> [(UInt64, StreamTaskError.Code)] {
        actions.compactMap {
            if case .fail(let id, let error, _) = $0 { return (id.rawValue, error.code) }
            return nil
        }
    }

    func writes(_ actions: StreamTaskStateMachine.Actions) -> [UInt64] {
        actions.compactMap {
            if case .write(let id, _, _) = $0 { return id.rawValue }
            return nil
        }
    }

    func contains(_ actions: StreamTaskStateMachine.Actions, _ predicate: (Action) -> Bool) -> Bool {
        actions.contains(where: predicate)
    }

    func openQueue(highWaterMark: Int = 1024) -> StreamTaskStateMachine {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: highWaterMark)
        _ = queue.connected()
        return queue
    }

    @Test func readCompletesAtExactlyMinLength() {
        var queue = openQueue()
        #expect(reads(queue.enqueue(.read(minLength: 5, maxLength: 10), id: id(1))).isEmpty)
        #expect(reads(queue.receivedPass(bytes("1234"))).isEmpty)
        let done = reads(queue.receivedPass(bytes("5")))
        #expect(done.count == 1)
        #expect(done.first?.1 == "12345")
        #expect(done.first?.2 == false)
    }

    @Test func bytesOfAPassTheMachineAskedForAreDecidedAtItsEnd() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(1))
        guard case .requested = queue.inbound else {
            Issue.record("a queued read asks the channel for input")
            return
        }
        // Three reads of the socket in one pass: the reader hears of them once, as of one read.
        #expect(reads(queue.received(bytes("ab"))).isEmpty)
        #expect(reads(queue.received(bytes("cd"))).isEmpty)
        #expect(queue.bufferedByteCount == 4)
        #expect(reads(queue.received(bytes("e"))).isEmpty)
        #expect(reads(queue.receiveCompleted()).map(\.1) == ["abcde"])
        #expect(queue.bufferedByteCount == 0)
    }

    @Test func readReturnsAtMostMaxLengthAndKeepsTheRest() {
        var queue = openQueue()
        _ = queue.receivedPass(bytes("abcdefghij"))
        #expect(reads(queue.enqueue(.read(minLength: 1, maxLength: 4), id: id(1))).map(\.1) == ["abcd"])
        #expect(queue.bufferedByteCount == 6)
        #expect(reads(queue.enqueue(.read(minLength: 6, maxLength: 100), id: id(2))).map(\.1) == ["efghij"])
    }

    @Test func endOfStreamBeforeMinLengthReturnsWhatIsLeft() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 10, maxLength: 20), id: id(1))
        _ = queue.receivedPass(bytes("abc"))
        let actions = queue.inputEnded()
        #expect(contains(actions) { if case .emit(.readClosed) = $0 { return true } else { return false } })
        #expect(reads(actions).map { "\($0.1)|\($0.2)" } == ["abc|true"])
        let after = reads(queue.enqueue(.read(minLength: 1, maxLength: 20), id: id(2)))
        #expect(after.map { "\($0.1)|\($0.2)" } == ["|true"])
    }

    @Test func atEOFOnlyOnceTheBufferIsEmpty() {
        var queue = openQueue()
        _ = queue.receivedPass(bytes("0123456789"))
        _ = queue.inputEnded()
        #expect(reads(queue.enqueue(.read(minLength: 1, maxLength: 6), id: id(1))).map(\.2) == [false])
        #expect(
            reads(queue.enqueue(.read(minLength: 1, maxLength: 6), id: id(2))).map { "\($0.1)|\($0.2)" } == [
                "6789|true"
            ])
    }

    @Test func aReadOfMinimumZeroWaitsForAByteAndTakesWhatIsBuffered() {
        var queue = openQueue()
        #expect(reads(queue.enqueue(.read(minLength: 0, maxLength: 4), id: id(1))).isEmpty)
        #expect(reads(queue.receivedPass(bytes("ab"))).map { "\($0.1)|\($0.2)" } == ["ab|false"])
        _ = queue.receivedPass(bytes("cdefg"))
        #expect(reads(queue.enqueue(.read(minLength: 0, maxLength: 4), id: id(2))).map(\.1) == ["cdef"])
    }

    @Test func readsAtTheEndReturnNothingAtEOFEveryTime() {
        var queue = openQueue()
        _ = queue.inputEnded()
        for (n, minLength) in [0, 1, 0, 5].enumerated() {
            let done = reads(queue.enqueue(.read(minLength: minLength, maxLength: 8), id: id(UInt64(n + 1))))
            #expect(done.map { "\($0.1)|\($0.2)" } == ["|true"])
        }
    }

    @Test func timedOutReadLosesNothing() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 5, maxLength: 10), id: id(1))
        _ = queue.receivedPass(bytes("abc"))
        let timeout = StreamTaskError(.timedOut, "test")
        #expect(failures(queue.abandon(id(1), error: timeout)).map(\.1) == [.timedOut])
        #expect(queue.bufferedByteCount == 3)
        _ = queue.receivedPass(bytes("de"))
        #expect(reads(queue.enqueue(.read(minLength: 5, maxLength: 10), id: id(2))).map(\.1) == ["abcde"])
    }

    @Test func readsCompleteInTheOrderIssued() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 3, maxLength: 3), id: id(1))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 3), id: id(2))
        _ = queue.enqueue(.read(minLength: 3, maxLength: 3), id: id(3))
        // A later read that could be satisfied alone still waits for the one before it.
        #expect(reads(queue.receivedPass(bytes("a"))).isEmpty)
        let done = reads(queue.receivedPass(bytes("aabbbccc")))
        #expect(done.map(\.0) == [1, 2, 3])
        #expect(done.map(\.1) == ["aaa", "bbb", "ccc"])
    }

    @Test func pendingReadDoesNotHoldBackAWrite() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 1, maxLength: 10), id: id(1))
        #expect(writes(queue.enqueue(.write(bytes("request")), id: id(2))) == [2])
    }

    @Test func writesAreIssuedInOrderAndWaitWhileUnwritable() {
        var queue = openQueue()
        #expect(writes(queue.enqueue(.write(bytes("1")), id: id(1))) == [1])
        _ = queue.writabilityChanged(false)
        #expect(writes(queue.enqueue(.write(bytes("2")), id: id(2))).isEmpty)
        #expect(writes(queue.enqueue(.write(bytes("3")), id: id(3))).isEmpty)
        let resumed = queue.writabilityChanged(true)
        #expect(writes(resumed) == [2, 3])
        #expect(contains(resumed) { if case .flush = $0 { return true } else { return false } })
    }

    @Test func writesWaitForTheConnection() {
        var queue = StreamTaskStateMachine.startedForTests()
        #expect(writes(queue.enqueue(.write(bytes("early")), id: id(1))).isEmpty)
        #expect(writes(queue.connected()) == [1])
    }

    @Test func queuedWriteThatTimesOutIsWithdrawnWithoutClosing() {
        var queue = openQueue()
        _ = queue.enqueue(.write(bytes("big")), id: id(1))
        _ = queue.writabilityChanged(false)
        _ = queue.enqueue(.write(bytes("late")), id: id(2))
        let actions = queue.abandon(id(2), error: StreamTaskError(.timedOut, "test"))
        #expect(failures(actions).map(\.0) == [2])
        #expect(!contains(actions) { if case .close = $0 { return true } else { return false } })
        #expect(writes(queue.writabilityChanged(true)).isEmpty)
    }

    @Test func issuedWriteThatTimesOutClosesTheConnection() {
        var queue = openQueue()
        _ = queue.enqueue(.write(bytes("sent in part")), id: id(1))
        _ = queue.enqueue(.read(minLength: 1, maxLength: 1), id: id(2))
        let actions = queue.abandon(id(1), error: StreamTaskError(.timedOut, "test"))
        #expect(contains(actions) { if case .close = $0 { return true } else { return false } })
        #expect(failures(actions).map(\.0) == [1, 2])
        #expect(failures(queue.enqueue(.write(bytes("x")), id: id(3))).map(\.1) == [.timedOut])
    }

    @Test func closeWriteWaitsForEarlierWritesThenRefusesLaterOnes() {
        var queue = openQueue()
        _ = queue.enqueue(.write(bytes("last words")), id: id(1))
        let queued = queue.enqueue(.closeWrite, id: id(2))
        #expect(!contains(queued) { if case .shutdownOutput = $0 { return true } else { return false } })
        #expect(failures(queue.enqueue(.write(bytes("too late")), id: id(3))).map(\.1) == [.writeClosed])
        let afterWrite = queue.writesCompleted(through: id(1), error: nil).actions
        #expect(contains(afterWrite) { if case .shutdownOutput = $0 { return true } else { return false } })
        #expect(contains(afterWrite) { if case .emit(.writeClosed) = $0 { return true } else { return false } })
        #expect(
            contains(afterWrite) { if case .succeed(let done, _) = $0 { return done == id(2) } else { return false } })
    }

    @Test func closeReadWaitsForEarlierReadsThenRefusesLaterOnes() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 2, maxLength: 2), id: id(1))
        _ = queue.enqueue(.closeRead, id: id(2))
        #expect(failures(queue.enqueue(.read(minLength: 1, maxLength: 1), id: id(3))).map(\.1) == [.readClosed])
        let actions = queue.receivedPass(bytes("okdropped"))
        #expect(reads(actions).map(\.1) == ["ok"])
        #expect(contains(actions) { if case .shutdownInput = $0 { return true } else { return false } })
        #expect(queue.bufferedByteCount == 0)
    }

    @Test func delimitedReadIncludesTheDelimiter() {
        var queue = openQueue()
        let crlf: [UInt8] = Array("\r\n".utf8)
        _ = queue.enqueue(.readThrough(delimiter: crlf, maxLength: 512), id: id(1))
        _ = queue.enqueue(.readThrough(delimiter: crlf, maxLength: 512), id: id(2))
        #expect(reads(queue.receivedPass(bytes("NICK a\r"))).isEmpty)
        #expect(reads(queue.receivedPass(bytes("\nUSER b\r\nrest"))).map(\.1) == ["NICK a\r\n", "USER b\r\n"])
        #expect(queue.bufferedByteCount == 4)
    }

    @Test func overlongDelimitedReadFailsAndKeepsTheBytes() {
        var queue = openQueue()
        let crlf: [UInt8] = Array("\r\n".utf8)
        _ = queue.enqueue(.readThrough(delimiter: crlf, maxLength: 8), id: id(1))
        // A delimiter that would end just past the limit does not count.
        let actions = queue.receivedPass(bytes("1234567\r\n"))
        #expect(failures(actions).map(\.1) == [.delimiterNotFound])
        #expect(queue.bufferedByteCount == 9)
        #expect(reads(queue.enqueue(.read(minLength: 9, maxLength: 9), id: id(2))).map(\.1) == ["1234567\r\n"])
    }

    @Test func delimitedReadAtEndOfStreamReturnsTheUnterminatedRest() {
        var queue = openQueue()
        let lf: [UInt8] = [10]
        _ = queue.receivedPass(bytes("line\ntail"))
        _ = queue.inputEnded()
        #expect(reads(queue.enqueue(.readThrough(delimiter: lf, maxLength: 100), id: id(1))).map(\.1) == ["line\n"])
        #expect(
            reads(queue.enqueue(.readThrough(delimiter: lf, maxLength: 100), id: id(2))).map { "\($0.1)|\($0.2)" } == [
                "tail|true"
            ])
        #expect(
            reads(queue.enqueue(.readThrough(delimiter: lf, maxLength: 100), id: id(3))).map { "\($0.1)|\($0.2)" } == [
                "|true"
            ])
    }

    @Test(arguments: [(-1, 10), (0, 0), (5, 4)])
    func invalidLengthsFailAtOnce(minLength: Int, maxLength: Int) {
        var queue = StreamTaskStateMachine.startedForTests()
        let actions = queue.enqueue(.read(minLength: minLength, maxLength: maxLength), id: id(1))
        #expect(failures(actions).map(\.1) == [.invalidArgument])
        #expect(!queue.hasPendingOperations)
    }

    @Test func inputIsRequestedOnlyBelowTheHighWaterMark() {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 8)
        #expect(contains(queue.connected()) { if case .requestInput = $0 { return true } else { return false } })
        _ = queue.received(bytes("0123456789"))
        #expect(
            !contains(queue.receiveCompleted()) { if case .requestInput = $0 { return true } else { return false } })
        let drained = queue.enqueue(.read(minLength: 1, maxLength: 5), id: id(1))
        #expect(contains(drained) { if case .requestInput = $0 { return true } else { return false } })
    }

    @Test func aReadLargerThanTheHighWaterMarkKeepsInputFlowing() {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 8)
        _ = queue.connected()
        _ = queue.enqueue(.read(minLength: 20, maxLength: 20), id: id(1))
        _ = queue.received(bytes("0123456789"))
        #expect(contains(queue.receiveCompleted()) { if case .requestInput = $0 { return true } else { return false } })
        #expect(reads(queue.receivedPass(bytes("0123456789"))).map(\.1) == ["01234567890123456789"])
    }

    @Test func anOverlongLineIsDetectedPastTheHighWaterMark() {
        var queue = StreamTaskStateMachine.startedForTests(highWaterMark: 4)
        _ = queue.connected()
        _ = queue.enqueue(.readThrough(delimiter: [10], maxLength: 12), id: id(1))
        _ = queue.received(bytes("abcdefgh"))
        #expect(contains(queue.receiveCompleted()) { if case .requestInput = $0 { return true } else { return false } })
        #expect(failures(queue.receivedPass(bytes("ijklmnop"))).map(\.1) == [.delimiterNotFound])
        // With nothing waiting, the buffer (now past the mark) stops asking for input.
        #expect(
            !contains(queue.receiveCompleted()) { if case .requestInput = $0 { return true } else { return false } })
    }

    @Test func resetFailsReadsThatTheBufferCannotSatisfy() {
        var queue = openQueue()
        _ = queue.receivedPass(bytes("abc"))
        _ = queue.enqueue(.read(minLength: 5, maxLength: 5), id: id(1))
        let actions = queue.closed(error: StreamTaskError(.connectionReset, "test"))
        #expect(failures(actions).map(\.1) == [.connectionReset])
        // What arrived before the reset can still be read.
        #expect(reads(queue.enqueue(.read(minLength: 1, maxLength: 5), id: id(2))).map(\.1) == ["abc"])
        #expect(failures(queue.enqueue(.read(minLength: 1, maxLength: 5), id: id(3))).map(\.1) == [.connectionReset])
    }

    @Test func cancelFailsEveryOperation() {
        var queue = openQueue()
        _ = queue.enqueue(.read(minLength: 1, maxLength: 1), id: id(1))
        _ = queue.enqueue(.write(bytes("a")), id: id(2))
        _ = queue.writabilityChanged(false)
        _ = queue.enqueue(.write(bytes("b")), id: id(3))
        let actions = queue.cancel()
        #expect(Set(failures(actions).map(\.0)) == [1, 2, 3])
        #expect(failures(actions).allSatisfy { $0.1 == .cancelled })
        #expect(contains(actions) { if case .close = $0 { return true } else { return false } })
        #expect(failures(queue.enqueue(.read(minLength: 0, maxLength: 1), id: id(4))).map(\.1) == [.cancelled])
    }

    /// The channel completes writes in order, so one outcome stands for every write before it:
    /// the driver gives a run of writes one promise (`StreamTaskDriver.writeToChannel(_:id:confirms:)`).
    @Test func aWriteConfirmedConfirmsEveryWriteBeforeItAndTheirBytes() {
        var queue = openQueue()
        #expect(writes(queue.enqueue(.write(bytes("ab")), id: id(1))) == [1])
        #expect(writes(queue.enqueue(.write(bytes("cde")), id: id(2))) == [2])
        #expect(writes(queue.enqueue(.write(bytes("f")), id: id(3))) == [3])
        #expect(queue.bytesInFlight == 6)
        let (done, sent) = queue.writesCompleted(through: id(2), error: nil)
        let succeeded = done.compactMap { action -> UInt64? in
            if case .succeed(let id, _) = action { return id.rawValue }
            return nil
        }
        #expect(succeeded == [1, 2])
        #expect(sent == 5)
        #expect(queue.bytesInFlight == 1)
        let (failed, none) = queue.writesCompleted(through: id(3), error: StreamTaskError(.connectionReset, "reset"))
        #expect(failures(failed).map(\.0) == [3])
        #expect(none == 0, "bytes of failed writes are not counted as sent")
        #expect(queue.writesCompleted(through: id(3), error: nil).actions.isEmpty, "confirmed once")
    }

    /// Many writes queued off the loop and decided in one pass: the machine hands the channel no
    /// more than its high-water mark (then the channel's own writability takes over).
    @Test func onePassHandsTheChannelNoMoreThanItsHighWaterMark() {
        var queue = StreamTaskStateMachine.startedForTests(outboundHighWaterMark: 10)
        _ = queue.connected()
        for n in 1...4 {
            _ = queue.admit(.write(bytes("abcd")), id: id(UInt64(n)))
        }
        #expect(writes(queue.process()) == [1, 2, 3], "12 bytes in flight: past the mark")
        #expect(writes(queue.writesCompleted(through: id(2), error: nil).actions) == [4])
    }

    @Test func bothDirectionsClosedClosesTheConnection() {
        var queue = openQueue()
        _ = queue.inputEnded()
        let actions = queue.enqueue(.closeWrite, id: id(1))
        #expect(contains(actions) { if case .close = $0 { return true } else { return false } })
    }
}
