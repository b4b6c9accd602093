//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore

/// The output side of a captured stream task: a Foundation `OutputStream` that writes the
/// connection, on Linux as on Darwin.
///
/// `write(_:maxLength:)` blocks the calling thread until the bytes have been handed to the
/// kernel (so a peer that does not read slows the writer down); call it on a thread of your
/// own, never on an event loop or in Swift's cooperative pool. `close()` sends the end of the
/// stream (the read side stays open). Scheduled in a run loop, it tells its `delegate` there
/// as Darwin's does: `openCompleted`, then `hasSpaceAvailable` once open and after each write,
/// and `errorOccurred` when a write fails. While TLS asked for through `socketSecurityLevelKey`
/// starts, it has no space: writes wait for the handshake.
final class CapturedOutputStream: OutputStream, CapturedStreamEventSource {
    private let connection: CapturedConnection?
    private let events = CapturedStreamEvents()
    private var status = Stream.Status.notOpen
    private var failure: (any Error)?

    init(connection: CapturedConnection) {
        self.connection = connection
        super.init(toMemory: ())
        events.deliver(to: self)
        connection.parts.withLockedValue { [events] in $0.outputEvents = events }
    }

    /// Foundation requires this initializer; a stream made with it has no connection and
    /// fails every write.
    required init(toMemory: ()) {
        self.connection = nil
        super.init(toMemory: ())
        events.deliver(to: self)
    }

    override var streamStatus: Stream.Status {
        guard status == .open, let connection else { return status }
        if connection.failure != nil { return .error }
        return connection.isConnected ? .open : .opening
    }

    override var streamError: (any Error)? { connection?.failure ?? failure }

    override func open() {
        guard status == .notOpen else { return }
        guard let connection else {
            status = .error
            failure = StreamTaskError(.invalidArgument, "this output stream was not made by captureStreams()")
            events.post(.errorOccurred)
            return
        }
        status = .open
        connection.streamOpened()
        // Weakly: the connection keeps this closure until it connects.
        connection.whenConnected { [weak connection, events] error in
            guard error == nil else { return events.post(.errorOccurred) }
            events.post(.openCompleted)
            // With TLS asked for, the space comes once the handshake is done.
            if connection?.isStartingTLS == false { events.post(.hasSpaceAvailable) }
        }
    }

    override func close() {
        guard status != .closed else { return }
        status = .closed
        events.streamEnded()
        connection?.closeWrite()
    }

    deinit {
        events.streamEnded()
    }

    /// Whether a write would go out now: the stream is open, and TLS asked for has started.
    override var hasSpaceAvailable: Bool {
        streamStatus == .open && connection?.isStartingTLS == false
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard status == .open, let connection, connection.failure == nil else { return -1 }
        guard len > 0 else { return 0 }
        status = .writing
        let bytes = ByteBuffer(bytes: UnsafeBufferPointer(start: buffer, count: len))
        switch connection.blocking(.write(bytes)) {
        case .success:
            status = .open
            events.post(.hasSpaceAvailable)
            return len
        case .failure(let error):
            failure = error
            status = .error
            events.post(.errorOccurred)
            return -1
        }
    }

    /// Takes `socketSecurityLevelKey` only, as Darwin's socket streams do: a level other than
    /// `.none` starts TLS on the connection (see ``CapturedConnection/setProperty(_:forKey:)``).
    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool {
        connection?.setProperty(property, forKey: key) ?? false
    }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? {
        connection?.property(forKey: key)
    }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        events.schedule(in: aRunLoop, forMode: mode)
    }

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        events.remove(from: aRunLoop, forMode: mode)
    }

    func isStillDue(_ event: Stream.Event) -> Bool {
        switch event {
        case .openCompleted: return streamStatus == .open || streamStatus == .writing
        case .hasSpaceAvailable: return hasSpaceAvailable
        case .errorOccurred: return streamStatus == .error
        default: return false
        }
    }
}
