//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskStateMachine {
    enum Operation {
        /// Read at least `minLength` and at most `maxLength` bytes.
        case read(minLength: Int, maxLength: Int)
        /// Read up to and including `delimiter`, which must end within `maxLength` bytes.
        case readThrough(delimiter: [UInt8], maxLength: Int)
        /// Read one whole frame, as `scan` finds it among the buffered bytes.
        case readFrame(FrameScan)
        case write(ByteBuffer)
        case closeRead
        case closeWrite
        /// Start TLS in `role` (see `TLSRole`); a barrier: it waits for every earlier operation
        /// and every later one waits for it. Indirect: a role carries a whole TLS
        /// configuration, which inline would make every operation, reads and writes too, and
        /// every slot of the queues that hold them, several times larger.
        indirect case startTLS(TLSRole)
        /// Send close_notify, wait for the peer's, and go back to plaintext; a barrier too.
        case stopTLS
        /// Hand the connection over to streams (`captureStreams()`); a barrier too.
        case captureStreams

        /// Whether it starts or stops TLS.
        var isTLSTransition: Bool {
            switch self {
            case .startTLS, .stopTLS: true
            case .read, .readThrough, .readFrame, .write, .closeRead, .closeWrite, .captureStreams: false
            }
        }
    }

    enum Event: Equatable {
        case readClosed
        case writeClosed
    }

    enum Action {
        /// A read finished: its bytes, and whether the stream is now at its end. Each outcome
        /// carries where it goes (the operation's completion, as it was queued), so that the
        /// driver keeps no table of them.
        case succeedRead(OperationID, ByteBuffer, atEOF: Bool, to: OperationCompletion?)
        /// A write, `closeRead` or `closeWrite` finished.
        case succeed(OperationID, to: OperationCompletion?)
        /// Indirect: an error is several times the size of the other actions, and failures are
        /// the rare outcome; inline, every action, and every slot that holds one, would be too.
        indirect case fail(OperationID, StreamTaskError, to: OperationCompletion?)
        /// Hand these bytes to the channel. With `confirm`, report the outcome of every write
        /// up to this one with `writesCompleted(through:error:)`; without, a later write (or
        /// ``confirmWrites(through:)``) stands for it.
        case write(OperationID, ByteBuffer, confirm: Bool)
        /// Hand the channel an empty write, and report its outcome as that of every write up to
        /// the one named: something waits for writes that were handed over unconfirmed.
        case confirmWrites(through: OperationID)
        case flush
        case shutdownOutput
        case shutdownInput
        /// Ask the channel for more input; report the end of that burst with `receiveCompleted`.
        case requestInput
        /// Close the whole connection.
        case close
        case emit(Event)
        /// Put TLS into the pipeline in `role`, then feed it `early` (a server's buffered start
        /// of the client's handshake); report the outcome with `tlsTransitionCompleted`.
        /// Indirect, as the operation's case is (see `Operation.startTLS`).
        indirect case startTLS(OperationID, TLSRole, early: ByteBuffer?)
        /// Unwrap TLS; report the outcome with `tlsTransitionCompleted`.
        case stopTLS(OperationID)
        /// Every operation before `captureStreams` has completed: hand the connection over,
        /// then report the operation's success to `completion`. The operation has left the
        /// queue; only operations `fromStreams` are accepted from now on.
        case captureStreams(OperationID, to: OperationCompletion?)
    }
}

extension StreamTaskStateMachine.Action {
    /// Whether it reports an operation's failure.
    var isFailure: Bool {
        if case .fail = self { return true }
        return false
    }
}

extension StreamTaskStateMachine.Inbound {
    var hasEnded: Bool {
        if case .ended = self { return true }
        return false
    }

    var hasEndedCleanly: Bool {
        if case .ended(truncation: nil) = self { return true }
        return false
    }

    var truncation: StreamTaskError? {
        if case .ended(let truncation) = self { return truncation }
        return nil
    }
}

extension StreamTaskStateMachine.Connection {
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}

extension StreamTaskStateMachine.Connection: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.notConnected, .notConnected), (.open, .open), (.closing, .closing): return true
        case (.closed(let a), .closed(let b)): return a?.code == b?.code
        default: return false
        }
    }
}
