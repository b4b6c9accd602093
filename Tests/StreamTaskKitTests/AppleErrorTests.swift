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

/// Errors as Darwin code checks them: `error as? URLError` and `(error as NSError).code` give
/// Apple's codes on the Apple-shaped surface, and the library's detail stays reachable.
@Suite(.timeLimit(.minutes(1))) struct AppleErrorTests {
    @Test(arguments: [
        (StreamTaskError.Code.timedOut, URLError.Code.timedOut),
        (.connectTimeout, .timedOut),
        (.cancelled, .cancelled),
        (.hostNotFound, .cannotFindHost),
        (.connectionRefused, .cannotConnectToHost),
        (.connectionReset, .networkConnectionLost),
        (.tlsUntrustedCertificate, .serverCertificateUntrusted),
        (.tlsHostnameMismatch, .serverCertificateUntrusted),
        (.tlsCertificateExpired, .serverCertificateHasBadDate),
        (.tlsHandshakeFailed, .secureConnectionFailed),
        (.proxyAuthenticationRequired, .userAuthenticationRequired),
        (.proxyProtocolError, .badServerResponse),
    ])
    func eachFailureHasApplesCode(code: StreamTaskError.Code, expected: URLError.Code) {
        let detail = StreamTaskError(code, "what happened", host: "example.com", port: 7)
        let error: any Error = detail.urlError
        #expect((error as? URLError)?.code == expected)
        let nsError = error as NSError
        #expect(nsError.domain == NSURLErrorDomain)
        #expect(nsError.code == expected.rawValue)
        #expect(nsError.localizedDescription.contains("what happened"))
        #expect(nsError.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(error.streamTaskError?.code == code)
        #expect(error.streamTaskError?.host == "example.com")
        // The library's own error bridges to the same domain and code.
        let direct = detail as NSError
        #expect(direct.domain == NSURLErrorDomain)
        #expect(direct.code == expected.rawValue)
    }

    @Test func aTasksErrorIsAURLErrorWithTheDetailBehindIt() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let task = StreamSession(configuration: .init(proxy: .direct)).streamTask(
            withHostName: "127.0.0.1", port: closed.port)
        task.resume()
        _ = await task.waitUntilCompleted()
        let error = try #require(task.error)
        #expect((error as? URLError)?.code == .cannotConnectToHost)
        #expect((error as NSError).code == NSURLErrorCannotConnectToHost)
        #expect(error.streamTaskError?.errno == ECONNREFUSED)
        #expect(task.streamTaskError?.code == .connectionRefused)
    }

    @Test func aReadThatTimesOutReportsNSURLErrorTimedOut() async throws {
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let codes = await withCheckedContinuation { continuation in
            client.readData(ofMinLength: 1, maxLength: 10, timeout: 0.2) { data, atEOF, error in
                continuation.resume(returning: [data == nil ? 1 : 0, atEOF ? 1 : 0, (error as NSError?)?.code ?? 0])
            }
        }
        #expect(codes == [1, 0, NSURLErrorTimedOut])
        // The async form throws the library's error, whose NSError form is Apple's.
        do {
            _ = try await client.readData(ofMinLength: 1, maxLength: 10, timeout: 0.2)
            Issue.record("the read should have timed out")
        } catch {
            #expect(error is StreamTaskError)
            #expect((error as NSError).code == NSURLErrorTimedOut)
            #expect((error as NSError).domain == NSURLErrorDomain)
        }
        for task in [client, peer] { task.cancel() }
        await server.stop()
    }

    @Test func theTaskDelegateHearsAURLError() async throws {
        final class Delegate: StreamSessionTaskDelegate {
            let errors = Recorder<String>()
            func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?)
            {
                errors.append("\(task.taskIdentifier) \((error as? URLError)?.code.rawValue ?? 0)")
            }
        }
        let delegate = Delegate()
        let (server, client, peer) = try await LoopbackServer.connectedPair()
        let session = StreamSession(configuration: .init(proxy: .direct), delegate: delegate, delegateQueue: nil)
        let task = session.loopbackTask(port: server.port)
        try await task.write("x")
        task.cancel()
        #expect(await eventually { delegate.errors.values == ["\(task.taskIdentifier) \(NSURLErrorCancelled)"] })
        for task in [client, peer] { task.cancel() }
        await server.stop()
    }
}
