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
import StreamTaskCore

extension StreamTask {
    /// Reads one message, framed by `framer`; see
    /// `StreamTask.readMessage(framedBy:timeout:)` for the rules.
    ///
    /// The handler runs on the session's delegate queue, as the task's other completion
    /// handlers do, with the message (`nil` at the end of the stream, or on error) and the
    /// error, if any: a `URLError` as Apple's API would give, carrying the library's error.
    public func readMessage<Framer: MessageFramer>(
        framedBy framer: Framer,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable (Framer.Message?, (any Error)?) -> Void
    ) {
        readFrame(framer.scan, timeout: timeout) { result in
            do {
                let (bytes, atEOF) = try result.get()
                completionHandler(try framer.messageOfRead(bytes, atEOF: atEOF), nil)
            } catch let error as StreamTaskError {
                completionHandler(nil, error.urlError)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// Frames `message` with `framer` and writes it; the handler gets `nil` once every byte has
    /// been handed to the kernel, or the error (a message the framer cannot frame fails with
    /// nothing sent).
    public func send<Framer: MessageFramer>(
        _ message: Framer.Message,
        framedBy framer: Framer,
        timeout: TimeInterval,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        var buffer = ByteBuffer()
        do {
            try framer.frame(message, into: &buffer)
        } catch {
            let reported = (error as? StreamTaskError)?.urlError ?? error
            onDelegateQueue { completionHandler(reported) }
            return
        }
        write(buffer, timeout: timeout, completionHandler: completionHandler)
    }
}
