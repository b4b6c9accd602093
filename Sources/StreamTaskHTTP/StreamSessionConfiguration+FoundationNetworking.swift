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

/// `URLSessionConfiguration`'s properties whose types come from FoundationNetworking on Linux,
/// with Apple's names and defaults. The library has no cache, cookie store or credential
/// store, and data tasks speak HTTP/1.1 themselves: each is kept, and returned as it was set,
/// with no effect, so that code that sets them ports unchanged.
extension StreamSessionConfiguration {
    /// Kept, with no effect: data tasks never cache (`.useProtocolCachePolicy` by default).
    public var requestCachePolicy: URLRequest.CachePolicy {
        get { URLRequest.CachePolicy(rawValue: self[\.requestCachePolicyRawValue]) ?? .useProtocolCachePolicy }
        set { self[\.requestCachePolicyRawValue] = newValue.rawValue }
    }

    /// Kept, with no effect: Linux marks no traffic by service type (`.default` by default).
    public var networkServiceType: URLRequest.NetworkServiceType {
        get { URLRequest.NetworkServiceType(rawValue: self[\.networkServiceTypeRawValue]) ?? .default }
        set { self[\.networkServiceTypeRawValue] = newValue.rawValue }
    }

    /// Kept, with no effect: the library has no cookie store (`.onlyFromMainDocumentDomain` by
    /// default).
    public var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { HTTPCookie.AcceptPolicy(rawValue: self[\.httpCookieAcceptPolicyRawValue]) ?? .onlyFromMainDocumentDomain }
        set { self[\.httpCookieAcceptPolicyRawValue] = newValue.rawValue }
    }

    /// Kept, with no effect: data tasks neither send nor store cookies (`nil` by default).
    public var httpCookieStorage: HTTPCookieStorage? {
        get { self[\.httpCookieStorage]?.object as? HTTPCookieStorage }
        set { self[\.httpCookieStorage] = newValue.map(KeptObject.init) }
    }

    /// Kept, with no effect: authentication challenges go to the delegate (`nil` by default).
    public var urlCredentialStorage: URLCredentialStorage? {
        get { self[\.urlCredentialStorage]?.object as? URLCredentialStorage }
        set { self[\.urlCredentialStorage] = newValue.map(KeptObject.init) }
    }

    /// Kept, with no effect: data tasks never cache (`nil` by default).
    public var urlCache: URLCache? {
        get { self[\.urlCache]?.object as? URLCache }
        set { self[\.urlCache] = newValue.map(KeptObject.init) }
    }

    /// Kept, with no effect: data tasks speak HTTP/1.1 themselves, through no `URLProtocol`
    /// (`nil` by default).
    public var protocolClasses: [AnyClass]? {
        get { self[\.protocolClasses]?.object as? [AnyClass] }
        set { self[\.protocolClasses] = newValue.map(KeptObject.init) }
    }
}
