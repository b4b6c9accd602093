//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension StreamTaskDriver {
    /// Hands `bytes` to the channel. Only a write the machine asks to confirm (`confirms`)
    /// carries a promise: the channel completes writes in order, so its outcome is that of
    /// every write before it too, and a run of small writes costs one promise (see
    /// `StreamTaskStateMachine.unconfirmedWrites`). (When it fails, every write it stands for
    /// fails with it, though the kernel may have taken some of them before the failure: the
    /// connection is broken by then.)
    func writeToChannel(_ bytes: ByteBuffer, id: OperationID, confirms: Bool) {
        guard let handler else {
            return writesFinished(through: id, .failure(ChannelError.ioOnClosedChannel))
        }
        unflushedBytes += bytes.readableBytes
        guard confirms else { return handler.write(bytes, promise: nil) }
        let promise = eventLoop.makePromise(of: Void.self)
        promisedWrites.append(id)
        // Captures the driver alone: the id waits in `promisedWrites`, which the promises
        // complete in order.
        promise.futureResult.whenComplete { [self] result in
            writesFinished(through: promisedWrites.popFirst()!, result)
        }
        handler.write(bytes, promise: promise)
    }

    /// Whether every write handed to the channel has left it for the socket: all of them were
    /// flushed (a TLS handler encrypts and passes on what it holds as it is flushed), and the
    /// channel holds none of their bytes.
    var outputDrained: Bool {
        guard !flushQueued, unflushedBytes == 0, let buffered = handler?.bufferedOutboundBytes else { return false }
        return buffered == 0
    }

    /// Under the task's lock, as input arrives: the writes in flight that went unconfirmed are
    /// done if the channel has written everything it was handed, and then complete without a
    /// confirmation. So a reply read after a request finds the request counted in
    /// `countOfBytesSent` (as on Darwin, where the count grows as bytes reach the socket), and
    /// the write ledger's room comes back, at the cost of asking the channel, not of a promise
    /// per write. With `passing` false the machine makes no pass: the caller's step makes one.
    func settleUnconfirmedWrites(
        in shared: inout StreamTask.Shared, passing: Bool
    ) -> StreamTaskStateMachine.Actions {
        guard shared.machine.unconfirmedWrites > 0, let last = shared.machine.writesInFlight.last, outputDrained else {
            return StreamTaskStateMachine.Actions()
        }
        let (actions, bytes) = shared.machine.writesCompleted(through: last.id, error: nil, passing: passing)
        shared.metrics.countOfBytesSent += Int64(bytes)
        return actions
    }

    /// The writes up to and including `id` finished with `result`: their outcomes go back to
    /// the machine, and their bytes to the metrics.
    private func writesFinished(through id: OperationID, _ result: Result<Void, any Error>) {
        let mapped: StreamTaskError? =
            if case .failure(let error) = result { ChannelErrorMapper.map(error) } else { nil }
        stepShared { shared in
            let failure = mapped.map { shared.machine.writeFailed($0) }
            let (actions, bytes) = shared.machine.writesCompleted(through: id, error: failure)
            shared.metrics.countOfBytesSent += Int64(bytes)
            return actions
        }
    }

    /// Flushes the channel once the loop has run the jobs already queued on it, rather than at
    /// once: writes that reach the loop together (a writer on the pool hops there once a
    /// write) then go out in one system call, as `NIOAsyncWriter` hands the channel everything
    /// yielded while the loop was busy; and writes that async code on the task's executor makes
    /// one after another go out once it suspends. One flush is queued at a time. Only when
    /// `holdsFlush` says so.
    ///
    /// The job flushes as an action list would: a flush completes writes, and through them
    /// can end the output (a `closeWrite` waiting for them), which must not happen while the
    /// channel's handlers are still inside the flush (NIOSSL's is, under TLS). Code on the
    /// task's executor holds its flush in the running job's list instead, which flushes the
    /// same way as the job returns, with no loop job of its own (see `HeldFlushes`).
    func flushSoon() {
        guard !flushQueued else { return }
        flushQueued = true
        if !inQueuedJob, HeldFlushes.hold(self) { return }
        eventLoop.execute {
            self.holdingActions { self.flushNow() }
        }
    }

    /// Runs a queued flush at once: before anything that ends the output or changes what it
    /// carries (a half-close, a close, TLS, the handover to streams), so that the writes
    /// handed to the channel before it go out first.
    func flushNow() {
        guard flushQueued else { return }
        flushAtOnce()
    }

    /// Flushes the channel now; a flush queued meanwhile finds nothing left to do.
    func flushAtOnce() {
        flushQueued = false
        unflushedBytes = 0
        handler?.flush()
    }

    /// Flushes as `holdsFlush` says: soon, or at once. A bulk writer on the pool that outruns
    /// the loop so hands the kernel several writes per system call, as `NIOAsyncWriter`'s do.
    func flushAsAsked() {
        if holdsFlush {
            flushSoon()
        } else {
            flushAtOnce()
        }
    }

    /// The most bytes a flush held for code on the executor lets wait: one system call carries
    /// that much for about its own cost, and a writer that goes on past it (a bulk transfer on
    /// the task's executor) would otherwise leave the socket idle while it fills the outbound
    /// limit.
    static let heldFlushLimit = 64 * 1024

    /// When a task's channel stops taking writes (its own buffer, after the kernel's is full):
    /// past 512 KiB, and again below 256 KiB. SwiftNIO's default (64 KiB) made a bulk writer of
    /// 64 KiB writes wait for room on every second write, and let each flush carry two of them;
    /// `NIOAsyncChannel` hands its channel whatever was yielded meanwhile, whatever the mark.
    /// The task's outbound limit (1 MiB by default) still bounds what async writes hold.
    static let channelWriteWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 256 * 1024, high: 512 * 1024)
}
