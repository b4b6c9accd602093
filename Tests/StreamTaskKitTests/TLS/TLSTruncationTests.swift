//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// A TLS peer that closes the connection without `close_notify` (RFC 8446, section 6.1):
/// what came before is read, and then an error stands where the end of stream would be.
/// The peer is Python's `ssl` module, whose `close()` sends no `close_notify`.
@Suite(.timeLimit(.minutes(1))) struct TLSTruncationTests {
    /// A client task upgraded to TLS with the peer in `mode`, and the first line read.
    private func upgraded(to mode: String) async throws -> (PythonPeer, StreamTask) {
        let certificates = try await TestCertificates.get()
        let peer = try await PythonPeer.start(mode, certificates.serverPEM, certificates.serverKey)
        let session = StreamSession(configuration: .init(tls: try certificates.clientConfiguration(), proxy: .direct))
        let task = session.loopbackTask(port: peer.port)
        try await task.startTLS(timeout: 10)
        #expect(try await task.readLine() == "whole line\r\n")
        // The peer closes once it has this byte.
        try await task.write("x")
        return (peer, task)
    }

    @Test func theBytesBeforeATruncationAreReadThenItIsAnError() async throws {
        let (peer, task) = try await upgraded(to: "tls-truncate")
        let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        #expect(data == Data("half a li".utf8))
        #expect(!atEOF, "a truncated stream has no clean end")
        await expectStreamError(.tlsTruncated) { try await task.readData(ofMinLength: 1, maxLength: 100, timeout: 10) }
        #expect(await task.waitUntilCompleted()?.code == .tlsTruncated)
        _ = await peer.finish()
    }

    @Test func aReadThatTheTruncationLeavesShortFailsAndLosesNothing() async throws {
        let (peer, task) = try await upgraded(to: "tls-truncate")
        await expectStreamError(.tlsTruncated) { try await task.readData(ofMinLength: 20, maxLength: 100, timeout: 10) }
        await expectStreamError(.tlsTruncated) {
            try await task.readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 100, timeout: 10)
        }
        let (data, _) = try await task.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        #expect(data == Data("half a li".utf8))
        task.cancel()
        _ = await peer.finish()
    }

    @Test func aCloseNotifyBeforeTheCloseIsACleanEnd() async throws {
        let (peer, task) = try await upgraded(to: "tls-close-notify")
        #expect(try await task.readToEnd() == "half a li")
        task.closeWrite()
        #expect(await task.waitUntilCompleted() == nil)
        _ = await peer.finish()
    }
}
