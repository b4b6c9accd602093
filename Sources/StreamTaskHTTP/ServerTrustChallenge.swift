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

/// A server trust challenge in Foundation's form: `NSURLAuthenticationMethodServerTrust`, with
/// the library's ``StreamServerTrust`` where Darwin has a `SecTrust`.
enum ServerTrustChallenge {
    static func make(_ trust: StreamServerTrust) -> URLAuthenticationChallenge {
        URLAuthenticationChallenge(
            protectionSpace: ServerTrustProtectionSpace(trust),
            proposedCredential: nil,
            previousFailureCount: 0,
            failureResponse: nil,
            error: nil,
            sender: IgnoredChallengeSender()
        )
    }
}

/// The protection space of a server trust challenge, carrying the trust.
final class ServerTrustProtectionSpace: URLProtectionSpace, @unchecked Sendable {
    // @unchecked: immutable after init, as Foundation's protection spaces.
    let trust: StreamServerTrust

    init(_ trust: StreamServerTrust) {
        self.trust = trust
        super.init(
            host: trust.host, port: trust.port, protocol: "https", realm: nil,
            authenticationMethod: streamServerTrustAuthenticationMethod)
    }

    required init?(coder: NSCoder) {
        nil
    }
}

/// Challenges go back through the completion handler, never through a sender, as with every
/// `URLSession` delegate challenge.
final class IgnoredChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}

/// The authentication method of a server trust challenge: the value of Darwin's
/// `NSURLAuthenticationMethodServerTrust`, which swift-corelibs-foundation marks unavailable.
public let streamServerTrustAuthenticationMethod = "NSURLAuthenticationMethodServerTrust"

extension URLProtectionSpace {
    /// The server's chain and the library's verdict, in a server trust challenge: what Darwin
    /// code reads as `serverTrust` (a `SecTrust`, which Linux does not have).
    public var streamServerTrust: StreamServerTrust? {
        (self as? ServerTrustProtectionSpace)?.trust
    }
}

extension URLCredential {
    /// A credential that answers a server trust challenge: what Darwin code makes with
    /// `URLCredential(trust:)`. Answering `.useCredential` trusts the server whatever the
    /// credential; this one says so in the code.
    public convenience init(streamTrust trust: StreamServerTrust) {
        self.init(user: "", password: "", persistence: .none)
    }
}

#if !canImport(Darwin)
/// Apple's name for the authentication method of a server trust challenge, which
/// swift-corelibs-foundation declares unavailable: this one is available, and Swift picks it, so
/// Darwin code that compares `authenticationMethod` with it compiles and behaves unchanged.
public let NSURLAuthenticationMethodServerTrust = streamServerTrustAuthenticationMethod

extension URLProtectionSpace {
    /// The server's chain and the library's verdict, in a server trust challenge, under Apple's
    /// name: Darwin code reads a `SecTrust` here, and swift-corelibs-foundation declares its
    /// `serverTrust` unavailable. Swift picks this available one, so
    /// `challenge.protectionSpace.serverTrust` compiles unchanged; `nil` in any other challenge.
    /// Code that passes it to `SecTrustEvaluateWithError` calls ``StreamServerTrust/evaluate()``
    /// instead: the one line to edit.
    public var serverTrust: StreamServerTrust? { streamServerTrust }
}

extension URLCredential {
    /// A credential that answers a server trust challenge, under Apple's name: what Darwin code
    /// makes with `URLCredential(trust:)` from the challenge's `serverTrust`. Answering
    /// `.useCredential` with it trusts the server whatever the library's evaluation said.
    public convenience init(trust: StreamServerTrust) {
        self.init(streamTrust: trust)
    }
}
#endif
