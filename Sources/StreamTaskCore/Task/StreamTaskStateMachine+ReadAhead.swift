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
    /// Whether the buffer may be lent to reads off the loop (`ReadAhead`): a read issued now
    /// would complete from the buffer, at once and in order, exactly as the lent bytes allow.
    /// So the connection is open, the input has not ended nor been closed, the task owns the
    /// connection and is running, and no operation that claims input is queued.
    var mayLendBuffer: Bool {
        guard connection == .open, input == .open, !inbound.hasEnded, owner == .task, activity == .running else {
            return false
        }
        return pending.claimingInputCount == 0
    }

    /// Hands the buffer over to be lent; the machine holds no bytes afterwards.
    mutating func lendBuffer() -> ByteQueue {
        let lent = buffer
        buffer = ByteQueue()
        return lent
    }

    /// Takes back the bytes lent and not read: they came before anything buffered since.
    mutating func reclaim(_ lent: ByteQueue) {
        buffer.requeueInFront(lent)
    }

    /// The last ``Action/requestInput`` was not carried out (lent bytes filled the input limit,
    /// see `ReadAhead`): no burst of reads is under way, and the next pass asks again.
    mutating func inputRequestWithdrawn() {
        if case .requested = inbound { inbound = .flowing }
    }
}
