//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOSSL

extension ChannelHandlerContext {
    /// Closes the whole connection, promptly under TLS too.
    ///
    /// Under TLS the close sends close_notify and waits for the peer's before the socket
    /// closes. NIOSSL (2.37) finishes that wait only if remote half-closure is off: with it on,
    /// as tasks run (for `closeRead` and `closeWrite`), the peer's close_notify is taken for a
    /// half-close and every close lasts NIOSSL's shutdown timeout, 5 s. Nothing is half-open
    /// once the whole connection closes, so it is turned off first. With automatic reads off,
    /// nothing would read the peer's close_notify, so a read is asked for too (once the channel
    /// has closed, which it has at once without TLS, that does nothing).
    package func closeWholeConnection() {
        _ = try? channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: false)
        close(promise: nil)
        read()
    }

    /// Closes the socket beneath TLS at once (without TLS, it does nothing). Called after a
    /// close has sent close_notify, it ends the connection without waiting for the peer's,
    /// which RFC 8446 (section 6.1) allows: a peer that keeps its side open, as an HTTP server
    /// keeping a connection alive does, would otherwise hold the close for the whole shutdown
    /// timeout.
    package func closeBeneathTLS() {
        guard let tls = try? pipeline.syncOperations.context(handlerType: NIOSSLHandler.self) else { return }
        tls.close(promise: nil)
    }
}
