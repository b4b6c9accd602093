//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging

extension StreamSessionConfiguration {
    /// Every setting of a configuration as one value: what a session copies when it is created,
    /// and what its tasks read, without a lock.
    package struct Values: Sendable {
        // Apple's settings that change what the library does.
        package var identifier: String?
        package var timeoutIntervalForRequest: TimeInterval = 60
        package var timeoutIntervalForResource: TimeInterval = 7 * 24 * 60 * 60
        package var httpMaximumConnectionsPerHost = 6
        package var connectionProxyDictionary: KeptDictionary?

        // Apple's settings that the library accepts and keeps, with no effect on Linux.
        package var waitsForConnectivity = false
        package var allowsCellularAccess = true
        package var allowsExpensiveNetworkAccess = true
        package var allowsConstrainedNetworkAccess = true
        package var isDiscretionary = false
        package var sessionSendsLaunchEvents = true
        package var sharedContainerIdentifier: String?
        package var shouldUseExtendedBackgroundIdleMode = false
        package var httpShouldUsePipelining = false
        package var httpShouldSetCookies = true
        package var httpAdditionalHeaders: KeptDictionary?
        // Apple's settings of types from FoundationNetworking on Linux: the HTTP module reads
        // and writes them typed (`requestCachePolicy`…).
        package var requestCachePolicyRawValue: UInt = 0
        package var networkServiceTypeRawValue: UInt = 0
        package var httpCookieAcceptPolicyRawValue: UInt = 2
        package var httpCookieStorage: KeptObject?
        package var urlCredentialStorage: KeptObject?
        package var urlCache: KeptObject?
        package var protocolClasses: KeptObject?

        // The library's own settings.
        package var timeoutIntervalForRead: TimeInterval = 0
        package var timeoutIntervalForWrite: TimeInterval = 0
        package var maximumConnectionsPerHost: Int = .max
        package var inboundBufferLimit = 256 * 1024
        package var outboundBufferLimit = 1024 * 1024
        // TLS 1.0 as the session's own floor, as Apple's: App Transport Security, on by
        // default, raises it to TLS 1.2 wherever it applies, and its exceptions can lower it.
        package var tls = StreamTLSConfiguration(minimumVersion: .tls1_0)
        package var transportSecurity = StreamTransportSecurity.mainBundle
        package var logger = Logger(label: "StreamTaskKit", factory: { _ in SwiftLogNoOpLogHandler() })
        package var proxy: ProxyConfiguration = .environment
        package var monitorsRoutes = true
    }

    /// A dictionary setting (the proxy dictionary, the additional headers) as it was set, kept
    /// to be returned as it was: property-list values (strings and numbers), which nothing
    /// mutates.
    package struct KeptDictionary: @unchecked Sendable {
        package let entries: [AnyHashable: Any]
    }

    /// An object a setting holds only to return it (a cookie store, a cache): the library
    /// never calls it, so no thread touches it but the caller's.
    package struct KeptObject: @unchecked Sendable {
        package let object: Any

        package init(_ object: Any) {
            self.object = object
        }
    }
}
