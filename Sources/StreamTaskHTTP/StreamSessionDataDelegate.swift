//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Callbacks about a session's data tasks, as `URLSessionDataDelegate`.
///
/// As Apple's, it refines the task delegate: a data task's end arrives through
/// `urlSession(_:task:didCompleteWithError:)` with the data task as `task`. Set an object that
/// conforms to it as the session's (or the data task's) delegate, and the data-task methods
/// below are called; an object that implements them without declaring this conformance is not
/// asked. Every method has a default implementation.
@preconcurrency public protocol StreamSessionDataDelegate: StreamSessionTaskDelegate {
    /// A data task's response head arrived: call `completionHandler` (once, from any thread)
    /// with what to do. Not called when the task's owner awaited
    /// ``StreamDataTask/receiveResponse()`` or decided before the head arrived. The default
    /// allows the body.
    func urlSession(
        _ session: StreamSession,
        dataTask: StreamSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (StreamSession.ResponseDisposition) -> Void
    )
    /// The async form of the method above, as Swift imports Apple's: implement either. The
    /// completion-handler form's default asks this one; this one's default allows the body.
    func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didReceive response: URLResponse
    ) async -> StreamSession.ResponseDisposition
    /// A chunk of a data task's body arrived (after an ``StreamDataTask/ResponseDisposition/allow``).
    func urlSession(_ session: StreamSession, dataTask: StreamSessionDataTask, didReceive data: Data)
    /// A data task became a stream task (``StreamDataTask/ResponseDisposition/becomeStream``);
    /// the data task completes next.
    func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didBecome streamTask: StreamSessionStreamTask)
}

extension StreamSessionDataDelegate {
    public func urlSession(
        _ session: StreamSession,
        dataTask: StreamSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (StreamSession.ResponseDisposition) -> Void
    ) {
        Task { completionHandler(await self.urlSession(session, dataTask: dataTask, didReceive: response)) }
    }
    public func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didReceive response: URLResponse
    ) async -> StreamSession.ResponseDisposition {
        .allow
    }
    public func urlSession(_ session: StreamSession, dataTask: StreamSessionDataTask, didReceive data: Data) {}
    public func urlSession(
        _ session: StreamSession, dataTask: StreamSessionDataTask, didBecome streamTask: StreamSessionStreamTask
    ) {}
}

/// A data task under the name the porting rule gives `URLSessionDataTask`.
public typealias StreamSessionDataTask = StreamDataTask

extension StreamSession {
    /// What to do with a data task's response, under the name the porting rule gives
    /// `URLSession.ResponseDisposition`.
    public typealias ResponseDisposition = StreamDataTask.ResponseDisposition
}
