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

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a task that was a data task keeps about its HTTP exchange.
struct DataTaskRecord: Sendable {
    let request: URLRequest
    let response: HTTPURLResponse
}

extension StreamTask {
    /// For a task that was a ``StreamDataTask`` and became a stream: the request it sent.
    public var originalRequest: URLRequest? { dataTaskRecord?.request }

    /// The request the task sent: ``originalRequest``, since data tasks follow no redirects.
    public var currentRequest: URLRequest? { originalRequest }

    /// For a task that was a ``StreamDataTask`` and became a stream: the response head it got,
    /// an `HTTPURLResponse` typed `URLResponse` as Apple's `URLSessionTask.response` is.
    public var response: URLResponse? { dataTaskRecord?.response }

    private var dataTaskRecord: DataTaskRecord? { withShared { $0.record as? DataTaskRecord } }
}
