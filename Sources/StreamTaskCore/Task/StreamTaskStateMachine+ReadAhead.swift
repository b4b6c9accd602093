//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskStateMachine.Operation {
    /// Why a read's arguments are refused; `nil` when they are valid, and for any operation
    /// that is not a read. The machine refuses such a read with it, and neither the lending nor
    /// a parked read ever takes one on.
    var argumentError: StreamTaskError? {
        switch self {
        case .read(let minLength, let maxLength):
            if minLength < 0 {
                return .invalidArgument("minLength must not be negative (got \(minLength))")
            }
            if maxLength < 1 {
                return .invalidArgument("maxLength must be at least 1 (got \(maxLength))")
            }
            if maxLength < minLength {
                return .invalidArgument("maxLength (\(maxLength)) must not be less than minLength (\(minLength))")
            }
            return nil
        case .readThrough(let delimiter, let maxLength):
            if delimiter.isEmpty {
                return .invalidArgument("the delimiter must not be empty")
            }
            if maxLength < delimiter.count {
                return .invalidArgument(
                    "maxLength (\(maxLength)) must be at least the delimiter's length (\(delimiter.count))"
                )
            }
            return nil
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
            return nil
        }
    }

    /// Whether the operation takes bytes from the buffer, drops them or needs them where they
    /// are: a read, `closeRead`, or a barrier. Such an operation takes lent bytes back first
    /// (see `ReadAhead`); writes and `closeWrite` do not touch the input.
    var claimsInput: Bool {
        switch self {
        case .read, .readThrough, .closeRead, .startTLS, .stopTLS, .captureStreams: true
        case .write, .closeWrite: false
        }
    }
}

extension StreamTaskStateMachine {
    /// Whether reads off the loop may take from the buffer (`ReadAhead`): a read issued now
    /// would complete from the buffer, at once and in order, exactly as those reads do.
    /// So the connection is open, the input has not ended nor been closed, the task owns the
    /// connection and is running, and no operation that claims input is queued.
    var mayLendBuffer: Bool {
        guard connection == .open, input == .open, !inbound.hasEnded, owner == .task, activity == .running else {
            return false
        }
        return pending.claimingInputCount == 0
    }

    /// Whether the next pass would ask the channel for input: nothing asks now and the buffer
    /// has room.
    var wantsInput: Bool {
        guard case .flowing = inbound, connection == .open, input == .open else { return false }
        return bufferedByteCount < highWaterMark
    }

    /// What the loop's look at the lending after a step decided (see ``lendAfterStep(taskRunning:midBurst:)``).
    enum LendStep {
        case nothing
        /// The lending closed (the machine may no longer lend): queue the read parked, if any.
        case closed(OperationRequest?)
        /// The lending is open; `asksForInput` when a pass must ask the channel for input.
        case opened(ReadAhead.LendOutcome, asksForInput: Bool)
    }

    /// A read issued off the loop: takes its bytes from the buffer when the lending is open and
    /// they satisfy it at once. `asksForInput` says the loop must make a pass, since the bytes
    /// taken made room for input nobody asks for.
    mutating func readAtOnce(_ operation: Operation) -> (bytes: ByteBuffer, asksForInput: Bool)? {
        // The lending closes after the step that ends what allows it; a read meanwhile
        // finds that step's outcome here already.
        guard mayLendBuffer, let bytes = readAhead.take(for: operation, from: &buffer) else { return nil }
        return (bytes, wantsInput)
    }

    /// After each step on the loop: closes the lending when the machine may no longer lend,
    /// and otherwise opens it (unless a burst of channel reads is still under way: a read
    /// parked is woken once a burst) when the task is running and nothing claiming input is on
    /// its way, completing the read parked if the buffer satisfies it.
    mutating func lendAfterStep(taskRunning: Bool, midBurst: Bool) -> LendStep {
        guard mayLendBuffer else {
            guard readAhead.isOpen || readAhead.hasParkedRead else { return .nothing }
            return .closed(readAhead.close(arriving: false))
        }
        if midBurst { return .nothing }
        if readAhead.isOpen && (!readAhead.hasParkedRead || bufferedByteCount == 0) { return .nothing }
        guard readAhead.mayLend, taskRunning else { return .nothing }
        let outcome = readAhead.lend(&buffer)
        return .opened(outcome, asksForInput: wantsInput)
    }

    /// Bytes taken off the loop made room for input (see ``readAtOnce(_:)``): a pass that asks
    /// for it.
    mutating func inputRoomMade() -> Actions {
        process()
    }
}
