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

/// Callbacks about a session's data tasks, shaped like `URLSessionDataDelegate`: a
/// `StreamSessionDelegate` that also hears about HTTP exchanges.
///
/// Like Apple's data delegate, it refines the session's delegate: set an object that conforms
/// to it as the session's (or the data task's) delegate, and the data-task methods below are
/// called; an object that implements them without declaring this conformance is not asked.
/// Every method has a default implementation.
public protocol StreamSessionDataDelegate: StreamSessionDelegate {
    /// A data task's response head arrived: call `completionHandler` (once, from any thread)
    /// with what to do. Not called when the task's owner awaited
    /// ``StreamDataTask/receiveResponse()`` or decided before the head arrived. The default
    /// allows the body.
    func streamSession(
        _ session: StreamSession,
        dataTask: StreamDataTask,
        didReceive response: HTTPURLResponse,
        completionHandler: @escaping @Sendable (StreamDataTask.ResponseDisposition) -> Void
    )
    /// A chunk of a data task's body arrived (after an ``StreamDataTask/ResponseDisposition/allow``).
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didReceive data: Data)
    /// A data task became a stream task (``StreamDataTask/ResponseDisposition/becomeStream``);
    /// the data task completes next. Like `urlSession(_:dataTask:didBecome:)`.
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didBecome streamTask: StreamTask)
    /// A data task completed: `nil` after the whole body, or once it became a stream.
    func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didCompleteWithError error: (any Error)?)
}

extension StreamSessionDataDelegate {
    public func streamSession(
        _ session: StreamSession,
        dataTask: StreamDataTask,
        didReceive response: HTTPURLResponse,
        completionHandler: @escaping @Sendable (StreamDataTask.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }
    public func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didReceive data: Data) {}
    public func streamSession(_ session: StreamSession, dataTask: StreamDataTask, didBecome streamTask: StreamTask) {}
    public func streamSession(
        _ session: StreamSession, dataTask: StreamDataTask, didCompleteWithError error: (any Error)?
    ) {}
}
