//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import StreamTaskCore

extension StreamTransportSecurity {
    /// The exception App Transport Security asks of a test whose server is on a loopback
    /// address and speaks plaintext HTTP or presents a certificate only a pin or a delegate
    /// trusts: `NSExceptionAllowsInsecureHTTPLoads` for 127.0.0.0/8 and ::1. The TLS version,
    /// suite and certificate rules still apply.
    static let insecureLoopback = StreamTransportSecurity(exceptionDomains: [
        "127.0.0.0/8": DomainException(allowsInsecureHTTPLoads: true),
        "::1": DomainException(allowsInsecureHTTPLoads: true),
    ])

    /// `NSAllowsLocalNetworking`: no rule applies to IP addresses, loopback included.
    static let localNetworking = StreamTransportSecurity(allowsLocalNetworking: true)
}
