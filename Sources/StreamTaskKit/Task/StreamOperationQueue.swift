import NIOCore

/// Identifies one operation queued on a task.
struct OperationID: Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt64
    var description: String { "op\(rawValue)" }
}

/// The operations of one stream task and its inbound buffer, as a plain value.
///
/// It performs no I/O: each input (an operation enqueued, bytes received, the channel
/// becoming writable, a timeout, …) returns the ``Action``s its owner must carry out, in order.
/// That keeps every ordering rule testable without sockets.
///
/// Ordering rules:
/// - Reads (and `closeRead`) form one lane, writes (and `closeWrite`) another. Each lane
///   completes in the order it was issued; the lanes are independent, so a pending read never
///   holds back a write (a request/response client may issue its read before its write).
/// - A read completes from the buffer as soon as the buffer satisfies it. A read that times out
///   or is abandoned leaves the buffer alone: the next read gets the bytes.
/// - `startTLS` and `stopTLS` are barriers: each starts once every earlier operation has
///   completed, and nothing issued after it starts until it is done. Unread bytes buffered when
///   `startTLS` starts arrived in plaintext after the go-ahead. A client refuses them (a server
///   says nothing until it has the client's hello): the upgrade fails and the connection closes.
///   A server passes them to the TLS handler if they begin like a TLS handshake record (a quick
///   client's hello), and refuses them otherwise. Either way, none is ever handed to a read.
/// - `captureStreams` is a barrier as well. When every earlier operation has completed it hands
///   the connection over (``Action/captureStreams(_:)``); operations queued behind it fail with
///   ``StreamTaskError/Code/streamsCaptured``, and from then on only operations marked as coming
///   from the captured streams are accepted. Unread bytes stay buffered for the streams.
/// - Writes are handed to the channel while it is writable; more wait here (backpressure).
///   `closeWrite` runs once every earlier write has completed, `closeRead` once every earlier
///   read has.
/// - Input is requested from the channel only while the buffer holds fewer than
///   `highWaterMark` bytes (or, when the first waiting read needs more, fewer than it needs),
///   so a slow reader slows the peer and memory stays bounded by what the caller asked for.
struct StreamOperationQueue {
    enum Operation {
        /// Read at least `minLength` and at most `maxLength` bytes.
        case read(minLength: Int, maxLength: Int)
        /// Read up to and including `delimiter`, which must end within `maxLength` bytes.
        case readThrough(delimiter: [UInt8], maxLength: Int)
        case write(ByteBuffer)
        case closeRead
        case closeWrite
        /// Start TLS in `role` (see `TLSRole`); a barrier: it waits for every earlier operation
        /// and every later one waits for it.
        case startTLS(TLSRole)
        /// Send close_notify, wait for the peer's, and go back to plaintext; a barrier too.
        case stopTLS
        /// Hand the connection over to streams (`captureStreams()`); a barrier too.
        case captureStreams
    }

    enum Event: Equatable {
        case readClosed
        case writeClosed
    }

    enum Action {
        /// A read finished: its bytes, and whether the stream is now at its end.
        case succeedRead(OperationID, ByteBuffer, atEOF: Bool)
        /// A write, `closeRead` or `closeWrite` finished.
        case succeed(OperationID)
        case fail(OperationID, StreamTaskError)
        /// Hand these bytes to the channel; report the write's outcome with `writeCompleted`.
        case write(OperationID, ByteBuffer)
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
        case startTLS(OperationID, TLSRole, early: ByteBuffer?)
        /// Unwrap TLS; report the outcome with `tlsTransitionCompleted`.
        case stopTLS(OperationID)
        /// Every operation before `captureStreams` has completed: hand the connection over.
        /// The operation is already done; only operations `fromStreams` are accepted from now on.
        case captureStreams(OperationID)
    }

    enum Connection {
        case notConnected
        case open
        /// Closed; `nil` for an orderly close.
        case closed(StreamTaskError?)
    }

    private struct Pending {
        let id: OperationID
        let operation: Operation
        /// A write that has been handed to the channel, or a TLS transition under way.
        var issued = false
    }

    let highWaterMark: Int
    private(set) var connection = Connection.notConnected
    private var pending: [Pending] = []
    private var buffer: ByteBuffer?
    /// The peer's end of stream arrived (or the connection closed in order).
    private var endOfInput = false
    /// Why the end of input is not a clean end of stream (TLS ended without `close_notify`):
    /// reads get the bytes buffered before it, then this error where the end would be.
    private var truncation: StreamTaskError?
    private var inputShutDown = false
    private var outputShutDown = false
    private var closeReadQueued = false
    private var closeWriteQueued = false
    private var writable = true
    private var inputRequested = false
    private var readClosedReported = false
    private var closeRequested = false
    /// `captureStreams` took effect: only the streams' own operations are accepted.
    private(set) var streamsCaptured = false

    init(highWaterMark: Int = 256 * 1024) {
        self.highWaterMark = highWaterMark
    }

    /// Bytes received and not yet read.
    var bufferedByteCount: Int { buffer?.readableBytes ?? 0 }

    /// Whether any operation is still waiting or in flight.
    var hasPendingOperations: Bool { !pending.isEmpty }

    /// The error the connection closed with, if it closed with one.
    var closeError: StreamTaskError? {
        if case .closed(let error) = connection { return error }
        return nil
    }

    // MARK: Inputs

    /// Queues `operation`. After `captureStreams` has taken effect, only operations
    /// `fromStreams` (the captured streams' own) are accepted; others fail at once.
    mutating func enqueue(_ operation: Operation, id: OperationID, fromStreams: Bool = false) -> [Action] {
        if streamsCaptured && !fromStreams {
            return [.fail(id, .streamsCaptured)]
        }
        if let error = validate(operation) {
            return [.fail(id, error)]
        }
        switch operation {
        case .closeRead: closeReadQueued = true
        case .closeWrite: closeWriteQueued = true
        default: break
        }
        pending.append(Pending(id: id, operation: operation))
        return process()
    }

    mutating func connected() -> [Action] {
        guard case .notConnected = connection else { return [] }
        connection = .open
        return process()
    }

    mutating func received(_ bytes: ByteBuffer) -> [Action] {
        guard case .open = connection, !inputShutDown, !endOfInput else { return [] }
        var bytes = bytes
        if buffer == nil || buffer!.readableBytes == 0 {
            buffer = bytes
        } else {
            buffer!.writeBuffer(&bytes)
        }
        return process()
    }

    /// The channel finished a burst of reads asked for with ``Action/requestInput``.
    mutating func receiveCompleted() -> [Action] {
        inputRequested = false
        return process()
    }

    /// The peer closed its side of the stream (a FIN arrived). With `truncation`, that end is
    /// not trustworthy: reads that reach it fail with that error, and leave what is buffered.
    mutating func inputEnded(truncation: StreamTaskError? = nil) -> [Action] {
        guard !endOfInput else { return [] }
        endOfInput = true
        self.truncation = truncation
        var actions = truncation == nil ? reportReadClosed() : []
        actions += process()
        return actions
    }

    /// Whether the input has cleanly ended with nothing left buffered.
    private var atCleanEnd: Bool { endOfInput && truncation == nil && bufferedByteCount == 0 }

    mutating func writabilityChanged(_ isWritable: Bool) -> [Action] {
        writable = isWritable
        return isWritable ? process() : []
    }

    mutating func writeCompleted(_ id: OperationID, error: StreamTaskError?) -> [Action] {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return [] }
        pending.remove(at: index)
        var actions: [Action] = [error.map { .fail(id, $0) } ?? .succeed(id)]
        actions += process()
        return actions
    }

    /// A TLS transition finished: with `nil` the connection is now protected (or plaintext
    /// again after `stopTLS`); an error closes the connection, since the stream's state is
    /// unknown after a failed handshake.
    mutating func tlsTransitionCompleted(
        _ id: OperationID,
        error: StreamTaskError?,
        closesConnection: Bool = true
    ) -> [Action] {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return [] }
        pending.remove(at: index)
        // Ask for input afresh: the TLS handler read on its own during the handshake.
        inputRequested = false
        guard let error else {
            var actions: [Action] = [.succeed(id)]
            actions += process()
            return actions
        }
        var actions: [Action] = [.fail(id, error)]
        guard closesConnection else {
            actions += process()
            return actions
        }
        actions += closed(error: error)
        actions.append(.close)
        return actions
    }

    /// Withdraws an operation that timed out or whose caller stopped waiting.
    ///
    /// A write the channel already has cannot be taken back, and part of it may have been sent,
    /// nor can a TLS handshake under way: the stream is no longer in a known state, so the
    /// connection is closed.
    mutating func abandon(_ id: OperationID, error: StreamTaskError) -> [Action] {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return [] }
        let item = pending.remove(at: index)
        var actions: [Action] = [.fail(id, error)]
        if item.issued {
            let reason = StreamTaskError(
                error.code,
                "the connection was closed because an operation under way was abandoned (\(error.message))"
            )
            actions += closed(error: reason)
            actions.append(.close)
        } else {
            actions += process()
        }
        return actions
    }

    /// The connection is gone: in order (`nil`) or with an error.
    mutating func closed(error: StreamTaskError?) -> [Action] {
        if case .closed = connection { return [] }
        connection = .closed(error)
        var actions: [Action] = []
        if error == nil && !endOfInput && !inputShutDown {
            // An orderly close ends the input too (SwiftNIO closes at once, without an
            // input-closed event, when the FIN comes after our own output was shut).
            endOfInput = true
            actions += reportReadClosed()
        }
        let failure = error ?? StreamTaskError(.connectionClosed, "the connection is closed")
        for item in pending where item.issued {
            actions.append(.fail(item.id, failure))
        }
        pending.removeAll(where: { $0.issued })
        actions += process()
        return actions
    }

    /// Fails every operation with a cancellation error and closes the connection.
    mutating func cancel() -> [Action] {
        var actions: [Action] = pending.map { .fail($0.id, .cancelled) }
        pending.removeAll()
        buffer = nil
        if case .closed = connection { return actions }
        let wasOpen: Bool
        if case .open = connection { wasOpen = true } else { wasOpen = false }
        connection = .closed(.cancelled)
        if wasOpen { actions.append(.close) }
        return actions
    }

    // MARK: Processing

    private func validate(_ operation: Operation) -> StreamTaskError? {
        switch operation {
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
            return closeReadQueued ? .readClosed : nil
        case .readThrough(let delimiter, let maxLength):
            if delimiter.isEmpty {
                return .invalidArgument("the delimiter must not be empty")
            }
            if maxLength < delimiter.count {
                return .invalidArgument(
                    "maxLength (\(maxLength)) must be at least the delimiter's length (\(delimiter.count))"
                )
            }
            return closeReadQueued ? .readClosed : nil
        case .write:
            return closeWriteQueued ? .writeClosed : nil
        case .closeRead, .closeWrite, .startTLS, .stopTLS:
            return nil
        case .captureStreams:
            return streamsCaptured ? .streamsCaptured : nil
        }
    }

    private mutating func process() -> [Action] {
        var actions: [Action] = []
        var readLaneBlocked = false
        /// What the first waiting read needs buffered before it can complete.
        var bytesWanted = 0
        var writeLaneBlocked = false
        var writeInFlight = false
        var issuedWrite = false
        var index = 0
        while index < pending.count {
            let item = pending[index]
            var done = false
            switch item.operation {
            case .read(let minLength, let maxLength):
                guard !readLaneBlocked else { break }
                if let action = completeRead(item.id, minLength: minLength, maxLength: maxLength) {
                    actions.append(action)
                    done = true
                } else {
                    readLaneBlocked = true
                    bytesWanted = minLength
                }
            case .readThrough(let delimiter, let maxLength):
                guard !readLaneBlocked else { break }
                if let action = completeReadThrough(item.id, delimiter: delimiter, maxLength: maxLength) {
                    actions.append(action)
                    done = true
                } else {
                    readLaneBlocked = true
                    bytesWanted = maxLength
                }
            case .closeRead:
                guard !readLaneBlocked else { break }
                if case .notConnected = connection {
                    readLaneBlocked = true
                    break
                }
                actions += performCloseRead()
                actions.append(.succeed(item.id))
                done = true
            case .write(let bytes):
                if item.issued {
                    writeInFlight = true
                    break
                }
                guard !writeLaneBlocked else { break }
                switch connection {
                case .notConnected:
                    writeLaneBlocked = true
                case .closed(let error):
                    actions.append(.fail(item.id, error ?? StreamTaskError(.connectionClosed, "the connection is closed")))
                    done = true
                case .open:
                    if !writable {
                        writeLaneBlocked = true
                    } else {
                        pending[index].issued = true
                        actions.append(.write(item.id, bytes))
                        issuedWrite = true
                        writeInFlight = true
                    }
                }
            case .startTLS, .stopTLS:
                defer {
                    // Nothing after a barrier moves until it is done.
                    readLaneBlocked = true
                    writeLaneBlocked = true
                }
                guard !item.issued, index == 0 else { break }
                switch connection {
                case .notConnected:
                    break
                case .closed(let error):
                    actions.append(.fail(item.id, error ?? StreamTaskError(.connectionClosed, "the connection is closed")))
                    done = true
                case .open:
                    var early: ByteBuffer?
                    if case .startTLS(let role) = item.operation, bufferedByteCount > 0 {
                        guard role.isServer, buffer!.startsLikeATLSHandshake else {
                            // Plaintext that arrived after the go-ahead and before the handshake
                            // (CVE-2011-0411): never hand it out as if it were protected.
                            let error = StreamTaskError(
                                .tlsPlaintextInjection,
                                "\(bufferedByteCount) bytes arrived in plaintext before the TLS handshake began; the upgrade was refused and the connection closed"
                            )
                            buffer = nil
                            pending.remove(at: index)
                            actions.append(.fail(item.id, error))
                            actions += closed(error: error)
                            actions.append(.close)
                            return actions
                        }
                        // A client may send its hello as soon as it reads the go-ahead: those
                        // bytes belong to the TLS handler, not to any read.
                        early = buffer
                        buffer = nil
                    }
                    pending[index].issued = true
                    switch item.operation {
                    case .startTLS(let role): actions.append(.startTLS(item.id, role, early: early))
                    default: actions.append(.stopTLS(item.id))
                    }
                }
            case .captureStreams:
                guard index == 0 else {
                    readLaneBlocked = true
                    writeLaneBlocked = true
                    break
                }
                switch connection {
                case .notConnected:
                    readLaneBlocked = true
                    writeLaneBlocked = true
                case .closed(let error):
                    actions.append(.fail(item.id, error ?? StreamTaskError(.connectionClosed, "the connection is closed")))
                    done = true
                case .open:
                    // The old owner's operations queued behind the barrier: the connection is
                    // no longer theirs.
                    for later in pending.dropFirst() {
                        actions.append(.fail(later.id, .streamsCaptured))
                    }
                    pending.removeSubrange(1...)
                    streamsCaptured = true
                    actions.append(.captureStreams(item.id))
                    done = true
                }
            case .closeWrite:
                guard !writeLaneBlocked, !writeInFlight else {
                    writeLaneBlocked = true
                    break
                }
                switch connection {
                case .notConnected:
                    writeLaneBlocked = true
                case .closed(let error):
                    actions.append(error.map { .fail(item.id, $0) } ?? .succeed(item.id))
                    done = true
                case .open:
                    if !outputShutDown {
                        outputShutDown = true
                        actions.append(.emit(.writeClosed))
                        actions.append(.shutdownOutput)
                    }
                    actions.append(.succeed(item.id))
                    done = true
                }
            }
            if done {
                pending.remove(at: index)
            } else {
                index += 1
            }
        }
        if issuedWrite {
            actions.append(.flush)
        }
        if case .open = connection {
            if (endOfInput || inputShutDown) && outputShutDown && !closeRequested {
                closeRequested = true
                actions.append(.close)
            } else if !endOfInput, !inputShutDown, !inputRequested,
                // A read that asks for more than the limit may buffer what it asked for.
                bufferedByteCount < Swift.max(highWaterMark, bytesWanted)
            {
                inputRequested = true
                actions.append(.requestInput)
            }
        }
        return actions
    }

    private mutating func completeRead(_ id: OperationID, minLength: Int, maxLength: Int) -> Action? {
        if inputShutDown { return .fail(id, .readClosed) }
        let available = bufferedByteCount
        if available > 0 && available >= minLength {
            let bytes = take(Swift.min(available, maxLength))
            return .succeedRead(id, bytes, atEOF: atCleanEnd)
        }
        if endOfInput { return readAtEnd(id) }
        if case .closed(let error?) = connection {
            return .fail(id, error)
        }
        if minLength == 0 {
            return .succeedRead(id, ByteBuffer(), atEOF: false)
        }
        return nil
    }

    private mutating func completeReadThrough(_ id: OperationID, delimiter: [UInt8], maxLength: Int) -> Action? {
        if inputShutDown { return .fail(id, .readClosed) }
        let available = bufferedByteCount
        if let end = buffer?.endOfFirst(delimiter, within: Swift.min(available, maxLength)) {
            let bytes = take(end)
            return .succeedRead(id, bytes, atEOF: atCleanEnd)
        }
        if available >= maxLength {
            return .fail(
                id,
                StreamTaskError(
                    .delimiterNotFound,
                    "no delimiter within the first \(maxLength) bytes; the bytes stay buffered for the next read"
                )
            )
        }
        if endOfInput { return readAtEnd(id) }
        if case .closed(let error?) = connection {
            return .fail(id, error)
        }
        return nil
    }

    /// A read that reached the end of input: what is left, at the end of stream, or, after a
    /// truncation, its error (leaving what is left for a smaller read).
    private mutating func readAtEnd(_ id: OperationID) -> Action {
        if let truncation { return .fail(id, truncation) }
        return .succeedRead(id, take(bufferedByteCount), atEOF: true)
    }

    private mutating func performCloseRead() -> [Action] {
        guard !inputShutDown else { return [] }
        inputShutDown = true
        buffer = nil
        var actions = reportReadClosed()
        if case .open = connection, !endOfInput {
            actions.append(.shutdownInput)
        }
        return actions
    }

    private mutating func reportReadClosed() -> [Action] {
        guard !readClosedReported else { return [] }
        readClosedReported = true
        return [.emit(.readClosed)]
    }

    private mutating func take(_ count: Int) -> ByteBuffer {
        guard count > 0, buffer != nil else { return ByteBuffer() }
        let bytes = buffer!.readSlice(length: count)!
        if buffer!.readableBytes == 0 {
            buffer = nil
        } else if buffer!.readerIndex > 64 * 1024 && buffer!.readerIndex > buffer!.readableBytes {
            buffer!.discardReadBytes()
        }
        return bytes
    }
}

extension ByteBuffer {
    /// Whether the readable bytes begin like a TLS handshake record (content type 22, then a
    /// major version of 3), as a ClientHello does.
    var startsLikeATLSHandshake: Bool {
        guard let type = getInteger(at: readerIndex, as: UInt8.self), type == 22 else { return false }
        guard let major = getInteger(at: readerIndex + 1, as: UInt8.self) else { return true }
        return major == 3
    }
}
