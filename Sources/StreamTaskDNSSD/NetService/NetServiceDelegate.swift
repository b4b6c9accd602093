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

/// What a `NetService` tells its delegate, with Foundation's names.
///
/// Every method is optional, as on Darwin: each has an empty default, so implement only those
/// you need. Swift has no `@objc optional` on Linux, so a method whose name or labels differ
/// from these by a letter is simply never called; copy the signatures exactly.
///
/// The methods are called on the run loop the service is scheduled in (see
/// `NetService.schedule(in:forMode:)`), and only while that run loop runs.
public protocol NetServiceDelegate: NSObjectProtocol {
    /// The service is about to be published.
    func netServiceWillPublish(_ sender: NetService)
    /// The service is published; `sender.name` is the name it was published under.
    func netServiceDidPublish(_ sender: NetService)
    /// The service could not be published; `errorDict` holds NetService/errorCode and
    /// NetService/errorDomain.
    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber])
    /// The service is about to be resolved.
    func netServiceWillResolve(_ sender: NetService)
    /// The service resolved: `addresses`, `hostName`, `port` and `txtRecordData()` are set.
    func netServiceDidResolveAddress(_ sender: NetService)
    /// The service did not resolve (`NetService.ErrorCode.timeoutError` when the timeout ran out).
    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber])
    /// Publishing or resolving stopped: after `stop()`, or when a resolve's timeout ends after
    /// it succeeded.
    func netServiceDidStop(_ sender: NetService)
    /// While monitoring (`startMonitoring()`): the service's TXT record, when it is first seen
    /// and whenever it changes.
    func netService(_ sender: NetService, didUpdateTXTRecord data: Data)
    /// A client connected to a service published with `.listenForConnections`: the connection
    /// as a pair of unopened streams. Open them (and schedule them in a run loop for their
    /// events); streams released unopened close the connection.
    func netService(_ sender: NetService, didAcceptConnectionWith inputStream: InputStream, outputStream: OutputStream)
}

extension NetServiceDelegate {
    /// Does nothing.
    public func netServiceWillPublish(_ sender: NetService) {}
    /// Does nothing.
    public func netServiceDidPublish(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceWillResolve(_ sender: NetService) {}
    /// Does nothing.
    public func netServiceDidResolveAddress(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceDidStop(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didUpdateTXTRecord data: Data) {}
    /// Does nothing.
    public func netService(
        _ sender: NetService, didAcceptConnectionWith inputStream: InputStream, outputStream: OutputStream
    ) {}
}
#endif
