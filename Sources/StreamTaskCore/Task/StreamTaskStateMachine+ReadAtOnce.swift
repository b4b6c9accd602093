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
    /// that is not a read. The machine refuses such a read with it, and a read at once never
    /// takes one on.
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
        case .readFrame(let scan):
            if scan.maxLength < 1 {
                return .invalidArgument("a frame's maximum length must be at least 1 (got \(scan.maxLength))")
            }
            return nil
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
            return nil
        }
    }

    /// Whether the operation takes bytes from the buffer, drops them or needs them where they
    /// are: a read, `closeRead`, or a barrier. While one is queued, reads off the loop take
    /// nothing at once (see ``StreamTaskStateMachine/readAtOnce(_:)``); writes and `closeWrite`
    /// do not touch the input.
    var claimsInput: Bool {
        switch self {
        case .read, .readThrough, .readFrame, .closeRead, .startTLS, .stopTLS, .captureStreams: true
        case .write, .closeWrite: false
        }
    }
}

extension StreamTaskStateMachine {
    /// Whether a read issued now, anywhere, may take its bytes from the buffer at once: it
    /// would complete from the buffer, at once and in order, exactly as if queued. So the
    /// connection is open, the input has not ended nor been closed, the task owns the
    /// connection and is running, and no operation that claims input is queued.
    var mayReadAtOnce: Bool {
        guard connection == .open, input == .open, !inbound.hasEnded, isRunning else {
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

    /// A read issued off the loop (or anywhere, before it is queued): takes its bytes from the
    /// buffer when ``mayReadAtOnce`` and they satisfy it now; `nil` otherwise, and the read is
    /// to be queued. `asksForInput` says the loop must make a pass (``process()``), since
    /// the bytes taken made room for input nobody asks for. A read whose arguments the machine
    /// would refuse takes nothing: the machine refuses it once queued.
    mutating func readAtOnce(_ operation: Operation) -> (bytes: ByteBuffer, asksForInput: Bool)? {
        guard mayReadAtOnce, operation.argumentError == nil else { return nil }
        let available = bufferedByteCount
        let bytes: ByteBuffer
        switch operation {
        case .read(let minLength, let maxLength):
            guard available > 0, available >= minLength else { return nil }
            bytes = buffer.dequeue(Swift.min(available, maxLength))
        case .readThrough(let delimiter, let maxLength):
            guard let end = buffer.endOfFirst(delimiter, within: Swift.min(available, maxLength)) else { return nil }
            bytes = buffer.dequeue(end)
        case .readFrame(let scan):
            guard let view = buffer.contiguousView(), case .frame(let length) = scan.find(in: view),
                length <= available
            else { return nil }
            bytes = buffer.dequeue(length)
        case .write, .closeRead, .closeWrite, .startTLS, .stopTLS, .captureStreams:
            return nil
        }
        return (bytes, wantsInput)
    }

    /// The operations whose deadline is `now` or earlier, earliest first (then in the order
    /// they were issued), and the earliest deadline still to come, for the task's one timer.
    /// They stay queued: the caller withdraws each (``abandon(_:error:returnedEarly:)``).
    func expired(
        at now: NIODeadline
    ) -> (due: [(id: OperationID, operation: Operation, deadline: Pending.Deadline)], next: NIODeadline?) {
        var due: [(id: OperationID, operation: Operation, deadline: Pending.Deadline)] = []
        var next: NIODeadline?
        for item in operations {
            guard let deadline = item.deadline else { continue }
            if deadline.at <= now {
                due.append((item.id, item.operation, deadline))
            } else if next.map({ deadline.at < $0 }) ?? true {
                next = deadline.at
            }
        }
        due.sort { ($0.deadline.at, $0.id.rawValue) < ($1.deadline.at, $1.id.rawValue) }
        return (due, next)
    }
}
