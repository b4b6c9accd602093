import Foundation
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamTask {
    /// For a task that was a ``StreamDataTask`` and became a stream: the request it sent.
    public var originalRequest: URLRequest? { withShared { $0.originalRequest } }

    /// For a task that was a ``StreamDataTask`` and became a stream: the response head it got.
    public var response: HTTPURLResponse? { withShared { $0.response } }
}
