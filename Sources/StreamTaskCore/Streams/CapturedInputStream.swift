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
/// `read(_:maxLength:)` blocks the calling thread until at least one byte has arrived or the
/// stream has ended; call it on a thread of your own, never on an event loop or in Swift's
/// cooperative pool. The stream sends no run-loop events: poll ``hasBytesAvailable`` or block
/// in `read`. `close()` closes the connection's read side.
final class CapturedInputStream: InputStream {
    private let connection: CapturedConnection?
    private var status = Stream.Status.notOpen
    private var failure: (any Error)?
    /// The last read reached the end of the stream.
    private var endReached = false

    init(connection: CapturedConnection) {
        self.connection = connection
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }

    override func open() {
        guard status == .notOpen else { return }
        status = connection == nil ? .error : .open
    }

    override func close() {
        guard status != .closed else { return }
        status = .closed
        connection?.closeRead()
    }

    /// `true` while a read may return bytes (Foundation allows `true` when only a read can tell).
    override var hasBytesAvailable: Bool { status == .open && !endReached }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        switch status {
        case .atEnd: return 0
        case .open: break
        default: return -1
        }
        guard len > 0 else { return 0 }
        guard let connection else { return -1 }
        status = .reading
        switch connection.blocking(.read(minLength: 1, maxLength: len)) {
        case .success(let (bytes, atEOF)):
            let count = bytes.readableBytes
            _ = bytes.withUnsafeReadableBytes { raw in
                raw.copyBytes(to: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            }
            if atEOF { endReached = true }
            status = endReached && count == 0 ? .atEnd : .open
            return count
        case .failure(let error):
            failure = error
            status = .error
            return -1
        }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}
