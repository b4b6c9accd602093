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
import NIOFoundationCompat

/// Completion-handler forms with `URLSessionStreamTask`'s argument labels, so code written for
/// it ports by renaming types. Handlers run on the session's delegate queue, in order, and
/// report errors as Apple's do: `URLError` values whose `streamTaskError` has the
/// detail.
extension StreamTask {
    /// Reads at least `minBytes` and at most `maxBytes` bytes; see
    /// ``readData(ofMinLength:maxLength:timeout:)`` for the rules.
    ///
    /// The handler gets the bytes (`nil` only on error), whether the stream has ended, and the
    /// error, if any. The bytes are empty only at the end of the stream, with `atEOF` `true`:
    /// a read of `minBytes` 0 waits for a byte when none is buffered, so a loop that reads
    /// again until `atEOF` or an error does not spin.
    public func readData(
        ofMinLength minBytes: Int,
        maxLength maxBytes: Int,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable (Data?, Bool, (any Error)?) -> Void
    ) {
        let queue = session.callbackQueue
        let operation = StreamTaskStateMachine.Operation.read(minLength: minBytes, maxLength: maxBytes)
        if let bytes = readAtOnce(operation) {
            let data = Data(buffer: bytes, byteTransferStrategy: .automatic)
            queue.async { completionHandler(data, false, nil) }
            return
        }
        submit(operation, timeout: timeout) { result in
            switch result {
            case .success(let outcome):
                let data = Data(buffer: outcome.bytes, byteTransferStrategy: .automatic)
                queue.async { completionHandler(data, outcome.atEOF, nil) }
            case .failure(let error):
                queue.async { completionHandler(nil, false, error.urlError) }
            }
        }
    }

    /// Reads up to and including the first `delimiter`; see
    /// ``readData(upToAndIncluding:maxLength:timeout:)`` for the rules.
    ///
    /// The handler gets the bytes (`nil` at end of stream with nothing left, or on error) and
    /// the error, if any.
    public func readData(
        upToAndIncluding delimiter: Data,
        maxLength: Int,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        let queue = session.callbackQueue
        let operation = StreamTaskStateMachine.Operation.readThrough(delimiter: Array(delimiter), maxLength: maxLength)
        if let bytes = readAtOnce(operation) {
            let data = Data(buffer: bytes, byteTransferStrategy: .automatic)
            queue.async { completionHandler(data, nil) }
            return
        }
        submit(operation, timeout: timeout) { result in
            switch result {
            case .success(let outcome):
                let data = Self.delimitedResult(outcome)
                queue.async { completionHandler(data, nil) }
            case .failure(let error):
                queue.async { completionHandler(nil, error.urlError) }
            }
        }
    }

    /// Writes `data`; the handler gets `nil` once every byte has been handed to the kernel, or
    /// the error. See ``write(_:timeout:)-(Data,_)`` for the rules.
    public func write(
        _ data: Data,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let startedAt = NIODeadline.now()  // the copy below comes out of the timeout
        write(ByteBuffer(data: data), timeout: timeout, startedAt: startedAt, completionHandler: completionHandler)
    }

    /// Writes the readable bytes of `buffer` without copying them; the handler gets `nil` once
    /// every byte has been handed to the kernel, or the error. See ``write(_:timeout:)-(Data,_)`` for
    /// the rules.
    public func write(
        _ buffer: ByteBuffer,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        write(buffer, timeout: timeout, startedAt: .now(), completionHandler: completionHandler)
    }

    private func write(
        _ buffer: ByteBuffer,
        timeout: TimeInterval,
        startedAt: NIODeadline,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let queue = session.callbackQueue
        submit(.write(buffer), timeout: timeout, startedAt: startedAt) { result in
            let error: (any Error)? = result.failure?.urlError
            queue.async { completionHandler(error) }
        }
    }
}

extension Result {
    /// The error, if `self` is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
