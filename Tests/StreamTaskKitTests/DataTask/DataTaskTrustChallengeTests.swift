//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task's `https` handshake asks the data task's delegate about the server's chain, as
/// Apple's does, against a TLS listener whose test CA the session does not trust.
@Suite(.timeLimit(.minutes(1))) struct DataTaskTrustChallengeTests {
    /// Runs a GET of `/trust` against a TLS listener with `delegate`; returns the body, or the
    /// error, and the data task's identifier.
    private func fetch(
        delegate: ServerTrustChallengeTests.ChallengeDelegate
    ) async throws -> (Result<String, any Error>, Int) {
        let certificates = try await TestCertificates.get()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: try certificates.serverConfiguration())
        try await listener.start()
        defer { Task { await listener.shutdown(gracePeriod: 0) } }
        let answering = Task {
            var accepted = listener.connections.makeAsyncIterator()
            guard let peer = await accepted.next() else { return }
            while let line = try? await peer.readLine(), line != "\r\n" {}
            try? await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\ntrusted")
        }
        defer { answering.cancel() }
        // The session trusts the system's roots only: not the test CA. A delegate may trust
        // the server only where App Transport Security has an exception for it.
        let configuration = StreamSessionConfiguration(timeoutIntervalForRequest: 20, proxy: .direct)
        configuration.transportSecurity = .insecureLoopback
        let session = StreamSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let port = try #require(listener.port)
        let dataTask = session.dataTask(with: try DataTaskTesting.request("https://127.0.0.1:\(port)/trust"))
        dataTask.resume()
        do {
            return (.success(String(decoding: try await dataTask.bodyData(), as: UTF8.self)), dataTask.taskIdentifier)
        } catch {
            return (.failure(error), dataTask.taskIdentifier)
        }
    }

    @Test func theDataTasksDelegateCanTrustTheServer() async throws {
        let delegate = ServerTrustChallengeTests.ChallengeDelegate(.useCredential)
        let (result, identifier) = try await fetch(delegate: delegate)
        #expect((try? result.get()) == "trusted", "\(result)")
        let seen = delegate.seen.withLockedValue { $0 }
        #expect(
            seen.count == 1 && seen[0].hasSuffix("untrusted task \(identifier)"), "asked about the data task: \(seen)")
    }

    @Test func defaultHandlingRefusesAnUntrustedServer() async throws {
        let delegate = ServerTrustChallengeTests.ChallengeDelegate(.performDefaultHandling)
        let (result, identifier) = try await fetch(delegate: delegate)
        guard case .failure(let error) = result else {
            Issue.record("an untrusted server was accepted")
            return
        }
        #expect(error.streamTaskError?.code == .tlsUntrustedCertificate, "\(error)")
        let seen = delegate.seen.withLockedValue { $0 }
        #expect(seen.count == 1 && seen[0].hasSuffix("task \(identifier)"), "\(seen)")
    }
}
