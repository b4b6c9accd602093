//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The input side of a captured stream task: a Foundation `InputStream` that reads the
/// connection, on Linux as on Darwin.
///
/// Once open, it reads ahead of its reader (at most 64 KiB; see ``CapturedReadAhead``), so
/// ``hasBytesAvailable`` says whether a read would return at once, as a Darwin socket stream's
/// does. Scheduled in a run loop, it tells its `delegate` there as Darwin's does: `openCompleted`,
/// `hasBytesAvailable` when bytes arrive and again after each read that leaves some,
/// `endEncountered` once the peer's end is reached and every byte read, `errorOccurred`.
/// `read(_:maxLength:)` with nothing held blocks the calling thread until a byte arrives or the
/// stream ends: never call it that way on an event loop (it fails) or in Swift's cooperative
/// pool. `close()` closes the connection's read side. `socketSecurityLevelKey` starts TLS (see
/// ``CapturedConnection/setProperty(_:forKey:)``).
final class CapturedInputStream: InputStream, CapturedStreamEventSource {
    private let readAhead: CapturedReadAhead
    private let events = CapturedStreamEvents()
    private var phase = Phase.notOpen
    /// A read waits in ``read(_:maxLength:)`` now.
    private var isReading = false
    /// Why a read failed that the connection did not fail: one that would have waited on the
    /// task's event loop.
    private var misuse: StreamTaskError?

    private enum Phase {
        case notOpen, open, closed
    }

    init(connection: CapturedConnection) {
        let readAhead = CapturedReadAhead(connection: connection)
        self.readAhead = readAhead
        super.init(data: Data())
        events.deliver(to: self)
        connection.parts.withLockedValue { $0.readAhead = readAhead }
    }

    override var streamStatus: Stream.Status {
        switch phase {
        case .notOpen: return .notOpen
        case .closed: return .closed
        case .open:
            if isReading { return .reading }
            let state = readAhead.state
            if state.buffered > 0 { return .open }
            if state.failure != nil || readAhead.connection.failure != nil || misuse != nil {
                return .error
            }
            if !readAhead.connection.isConnected { return .opening }
            return state.ended ? .atEnd : .open
        }
    }

    override var streamError: (any Error)? {
        phase == .open ? readAhead.connection.failure ?? readAhead.state.failure ?? misuse : nil
    }

    override func open() {
        guard phase == .notOpen else { return }
        phase = .open
        readAhead.connection.streamOpened()
        readAhead.connection.whenConnected { [events] error in
            events.post(error == nil ? .openCompleted : .errorOccurred)
        }
        // Weakly: the read-ahead keeps this closure, and releasing the streams must release it.
        readAhead.start { [weak readAhead, events] in
            if let readAhead { Self.postWhatHolds(readAhead, events) }
        }
    }

    override func close() {
        guard phase != .closed else { return }
        phase = .closed
        events.streamEnded()
        readAhead.stop()
        readAhead.connection.closeRead()
    }

    deinit {
        events.streamEnded()
    }

    /// Bytes read ahead and not yet taken (for tests).
    var bytesHeld: Int { readAhead.state.buffered }

    /// Whether bytes are held, so that a read returns at once.
    override var hasBytesAvailable: Bool {
        phase == .open && readAhead.state.buffered > 0
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard phase == .open, readAhead.connection.failure == nil else { return -1 }
        guard len > 0 else { return 0 }
        isReading = true
        defer { isReading = false }
        let taken = readAhead.take(into: buffer, maxLength: len)
        Self.postWhatHolds(readAhead, events)
        switch taken {
        case .bytes(let count): return count
        case .end: return 0
        case .failure(let error):
            if readAhead.state.failure == nil { misuse = error }
            return -1
        }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    /// Takes `socketSecurityLevelKey` only, as Darwin's socket streams do: a level other than
    /// `.none` starts TLS on the connection (see ``CapturedConnection/setProperty(_:forKey:)``).
    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool {
        readAhead.connection.setProperty(property, forKey: key)
    }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? {
        readAhead.connection.property(forKey: key)
    }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        events.schedule(in: aRunLoop, forMode: mode)
    }

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {
        events.remove(from: aRunLoop, forMode: mode)
    }

    /// Posts the event that the read-ahead's state calls for: bytes held, the end reached with
    /// none held, or a failure. Any thread.
    private static func postWhatHolds(_ readAhead: CapturedReadAhead, _ events: CapturedStreamEvents) {
        let state = readAhead.state
        guard !state.stopped else { return }
        if state.buffered > 0 {
            events.post(.hasBytesAvailable)
        } else if state.failure != nil {
            events.post(.errorOccurred)
        } else if state.ended {
            events.post(.endEncountered)
        }
    }

    func isStillDue(_ event: Stream.Event) -> Bool {
        guard phase == .open else { return false }
        let state = readAhead.state
        switch event {
        case .openCompleted: return readAhead.connection.isConnected
        case .hasBytesAvailable: return state.buffered > 0
        case .errorOccurred:
            return readAhead.connection.failure != nil || (state.buffered == 0 && state.failure != nil)
        case .endEncountered: return state.buffered == 0 && state.failure == nil && state.ended
        default: return false
        }
    }
}
