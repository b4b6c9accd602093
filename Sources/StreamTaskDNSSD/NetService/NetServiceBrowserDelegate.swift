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

/// What a `NetServiceBrowser` tells its delegate, with Foundation's names.
///
/// Every method is optional, as on Darwin: each has an empty default, so implement only those
/// you need. Swift has no `@objc optional` on Linux, so a method whose name or labels differ
/// from these by a letter is simply never called; copy the signatures exactly.
///
/// The methods are called on the run loop the browser is scheduled in (see
/// `NetServiceBrowser.schedule(in:forMode:)`), and only while that run loop runs.
public protocol NetServiceBrowserDelegate: NSObjectProtocol {
    /// A search is starting.
    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser)
    /// The search stopped, after `stop()`.
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser)
    /// The search could not start or failed; `errorDict` holds NetService/errorCode and
    /// NetService/errorDomain.
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber])
    /// A domain was found; `moreComing` is true when more reports are already waiting.
    func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool)
    /// A service was found; `moreComing` is true when more reports are already waiting, so a
    /// user interface can update once it is false.
    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool)
    /// A domain went away.
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool)
    /// A service went away; `service` is the object that `didFind` reported for it.
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool)
}

extension NetServiceBrowserDelegate {
    /// Does nothing.
    public func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) {}
    /// Does nothing.
    public func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {}
    /// Does nothing.
    public func netServiceBrowser(
        _ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool
    ) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool) {}
}
#endif
