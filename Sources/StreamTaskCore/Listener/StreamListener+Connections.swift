//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamListener {
    /// The accepted connections of a listener, in the order they arrived, as connected tasks.
    ///
    /// A task comes out once its connection is established: it is running, and its metrics
    /// carry both addresses. A connection that closes before then (a shutdown that starts as it
    /// is accepted) never comes out.
    ///
    /// The sequence pushes back: while
    /// ``StreamListener/Configuration/maximumWaitingConnections`` accepted connections wait for
    /// the consumer to take them, the listener accepts nothing more, and new connections wait in
    /// the kernel's backlog (and past it, are refused by the kernel). A consumer that stops
    /// iterating therefore stops the accepting; one that iterates again resumes it.
    ///
    /// One consumer at a time. The sequence ends when the listener shuts down, after the
    /// connections already waiting.
    public struct Connections: AsyncSequence, Sendable {
        public typealias Element = StreamTask

        let base: AsyncStream<StreamTask>
        let ledger: AcceptedConnectionLedger

        /// Takes the connections one by one.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<StreamTask>.Iterator
            let ledger: AcceptedConnectionLedger

            /// The next accepted connection, or `nil` once the listener has shut down.
            public mutating func next() async -> StreamTask? {
                guard let task = await base.next() else { return nil }
                ledger.taken()
                return task
            }

            /// The next accepted connection, or `nil` once the listener has shut down.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> StreamTask? {
                guard let task = await base.next(isolation: actor) else { return nil }
                ledger.taken()
                return task
            }
        }

        /// An iterator over the accepted connections.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator(), ledger: ledger)
        }
    }
}
