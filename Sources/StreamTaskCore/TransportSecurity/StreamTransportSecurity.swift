//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A session's transport-security policy: App Transport Security's rules and exceptions, with
/// the meaning of the `NSAppTransportSecurity` keys an app keeps in its `Info.plist`.
///
/// The policy is on by default. Wherever it applies, every TLS connection a session makes
/// (directly, after `startSecureConnection()`, to an HTTPS proxy, through a tunnel) must use
/// TLS 1.2 or newer with a forward-secret (ECDHE) AES cipher suite, and present a chain that
/// default trust evaluation accepts, signed with SHA-256 or stronger, with RSA keys of at least
/// 2048 bits and EC keys of at least 256. A data task's `http://` URL is refused. Plaintext
/// stream tasks stay allowed, as on Darwin: the rules start when TLS does.
///
/// Where it does not apply, as with ATS, are unqualified names (`printer`) and `.local` names
/// always, IP addresses when ``allowsLocalNetworking`` is set, and everything without an
/// exception when ``allowsArbitraryLoads`` is set. An entry of ``exceptionDomains`` matching the
/// host replaces all of these for it. Each refusal is its own ``StreamTaskError/Code`` and names
/// the exception that would allow it.
///
/// ```swift
/// var security = StreamTransportSecurity()
/// security.exceptionDomains["legacy.example.com"] = .init(minimumTLSVersion: .tls1_0)
/// configuration.transportSecurity = security
/// // or, from a Darwin app's own settings:
/// configuration.transportSecurity = try StreamTransportSecurity(contentsOf: infoPlistURL)
/// ```
public struct StreamTransportSecurity: Sendable, Hashable {
    /// The rules for one domain, IP address or range: the keys of an `NSExceptionDomains` entry.
    public struct DomainException: Sendable, Hashable {
        /// `NSIncludesSubdomains`: the entry also covers names one label longer
        /// (`example.com` covers `www.example.com`, not `a.www.example.com`), as Apple defines it.
        /// No effect on IP addresses and ranges.
        public var includesSubdomains: Bool
        /// `NSExceptionAllowsInsecureHTTPLoads`: `http://` data tasks, and a server trust that the
        /// configuration or a delegate loosens (a pinned self-signed certificate, verification
        /// off, a delegate accepting a chain that failed), are allowed.
        public var allowsInsecureHTTPLoads: Bool
        /// `NSExceptionMinimumTLSVersion`: the oldest TLS version accepted; TLS 1.2 by default.
        public var minimumTLSVersion: StreamTLSConfiguration.Version
        /// `NSExceptionRequiresForwardSecrecy`: whether only ECDHE suites are offered (and key
        /// sizes checked); `true` by default. `false` adds the RSA key-exchange AES suites and,
        /// as Apple's key does, drops the key size check.
        public var requiresForwardSecrecy: Bool

        /// An exception with Apple's default for every key not given.
        public init(
            includesSubdomains: Bool = false,
            allowsInsecureHTTPLoads: Bool = false,
            minimumTLSVersion: StreamTLSConfiguration.Version = .tls1_2,
            requiresForwardSecrecy: Bool = true
        ) {
            self.includesSubdomains = includesSubdomains
            self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
            self.minimumTLSVersion = minimumTLSVersion
            self.requiresForwardSecrecy = requiresForwardSecrecy
        }
    }

    /// `NSAllowsArbitraryLoads`: the rules apply only to hosts with an entry in
    /// ``exceptionDomains``. TLS connections elsewhere still get default trust evaluation, but
    /// no TLS version, suite or key checks, and the configuration or a delegate may loosen trust.
    public var allowsArbitraryLoads: Bool
    /// `NSAllowsLocalNetworking`: the rules do not apply to IP addresses either (unqualified and
    /// `.local` names are exempt without it, as since iOS 10; IP addresses are not, as since
    /// iOS 17).
    public var allowsLocalNetworking: Bool
    /// `NSExceptionDomains`: rules by lowercase domain name (no port, no wildcard), IP address,
    /// or CIDR range (`192.0.2.0/24`, `2001:db8::/32`). A name matches names only and an
    /// address addresses only, whatever the name resolves to. Of keys that differ only in case,
    /// the lowercase one applies; of ranges equally narrow that hold an address, the first key
    /// in code-point order.
    public var exceptionDomains: [String: DomainException]

    /// ATS's defaults: every rule, everywhere but unqualified and `.local` names.
    public init(
        allowsArbitraryLoads: Bool = false,
        allowsLocalNetworking: Bool = false,
        exceptionDomains: [String: DomainException] = [:]
    ) {
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.allowsLocalNetworking = allowsLocalNetworking
        self.exceptionDomains = exceptionDomains
    }

    /// What ATS requires of a connection to `host`, or `nil` where it does not apply.
    package func requirements(forHost host: String) -> TransportSecurityRequirements? {
        let target = TransportSecurityHost(host)
        if let (key, exception) = exception(for: target) {
            return TransportSecurityRequirements(host: target.text, exceptionDomain: key, exception: exception)
        }
        if target.isUnqualifiedOrLocalName { return nil }
        if target.address != nil, allowsLocalNetworking { return nil }
        if allowsArbitraryLoads { return nil }
        return TransportSecurityRequirements(host: target.text, exceptionDomain: nil, exception: DomainException())
    }

    /// The entry that governs `target`: its exact key, else the most specific range holding its
    /// address, else its parent domain's entry when that includes subdomains.
    private func exception(for target: TransportSecurityHost) -> (String, DomainException)? {
        // Keys that differ only in case: the one in lowercase wins, else the first in code-point
        // order, the same in every process (dictionary order is not).
        let entries = Dictionary(
            exceptionDomains.sorted { $0.key > $1.key }.map { ($0.key.lowercased(), $0.value) }
        ) { first, _ in first }
        if let exact = entries[target.text] { return (target.text, exact) }
        if let address = target.address {
            let ranges = entries.compactMap { key, value in
                AddressRange(key).map { (key, value, $0) }
            }
            // The narrowest range; between ranges as narrow, the first key in code-point order.
            let best = ranges.filter { $0.2.contains(address) }.max {
                ($0.2.prefixLength, $1.0) < ($1.2.prefixLength, $0.0)
            }
            return best.map { ($0.0, $0.1) }
        }
        // The first label ends at the byte "." (a `Character` fuses it with a combining mark).
        let name = target.text.utf8
        guard let dot = name.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let parent = String(decoding: name[name.index(after: dot)...], as: UTF8.self)
        if AddressRange(parent) == nil, let entry = entries[parent], entry.includesSubdomains { return (parent, entry) }
        return nil
    }
}
