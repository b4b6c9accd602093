//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation

extension Stream {
    /// Darwin Foundation's `getStreamsToHost(withName:port:inputStream:outputStream:)`, which
    /// Foundation on Linux lacks: a pair of unopened streams to `hostname` at `port`, over a TCP
    /// connection made when either is opened.
    ///
    /// The streams are those ``StreamTask/captureStreams()`` hands over, of a stream task of
    /// ``StreamSession/shared`` that connects directly, whatever proxy the environment names, as
    /// Darwin's socket streams do. Scheduled in a run loop, they send `openCompleted` once
    /// connected, or `errorOccurred` with the connection's error (a host that cannot be
    /// resolved or reached); see <doc:StreamHandover> for their events and which threads may
    /// read and write them. Streams released unopened leave no connection behind. For TLS, set
    /// `socketSecurityLevelKey` on either stream, before opening it or later, as on Darwin: the
    /// shared session's TLS settings and default trust evaluation apply.
    ///
    /// - Parameters:
    ///   - hostname: The host: a name, or an IPv4 or IPv6 address.
    ///   - port: The TCP port, 1 to 65535.
    ///   - inputStream: Where to put the stream that reads from the host; `nil` for none.
    ///   - outputStream: Where to put the stream that writes to it; `nil` for none.
    public class func getStreamsToHost(
        withName hostname: String,
        port: Int,
        inputStream: UnsafeMutablePointer<InputStream?>?,
        outputStream: UnsafeMutablePointer<OutputStream?>?
    ) {
        StreamSession.shared.streamTask(withHostName: hostname, port: port, proxy: .direct)
            .captureFoundationStreamsBeforeResuming(into: inputStream, outputStream)
    }
}
#endif
