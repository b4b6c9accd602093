//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore

/// App Transport Security as values: which hosts a policy covers and with which exception, the
/// `NSAppTransportSecurity` dictionary and files it is read from, the refusals and the codes
/// they report, and what the certificate reader finds in real (and broken) certificates.
@Suite struct TransportSecurityPolicyTests {
    private typealias Exception = StreamTransportSecurity.DomainException

    // MARK: Host matching

    @Test(arguments: [
        ("example.com", "example.com"), ("WWW.Apple.COM", "www.apple.com"), ("93.184.216.34", "93.184.216.34"),
        ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("2001:DB8::1", "2001:db8::1"),
        ("[fe80::1]", "fe80::1"), ("printer.localdomain", "printer.localdomain"),
        ("example.notlocal", "example.notlocal"), ("printer.local.example.com", "printer.local.example.com"),
    ])
    func theDefaultsApplyToPublicNamesAndIPLiterals(host: String, lowercased: String) throws {
        let rules = try #require(StreamTransportSecurity().requirements(forHost: host))
        #expect(rules.host == lowercased)
        #expect(rules.exceptionDomain == nil)
        #expect(rules.minimumVersion == .tls1_2)
        #expect(rules.requiresForwardSecrecy)
        #expect(!rules.allowsInsecureHTTPLoads)
        #expect(!rules.handshake.cipherSuites.contains("RSA+"))
    }

    @Test(arguments: [
        "printer", "localhost", "LOCALHOST", "printer.", "printer.local", "Printer.LOCAL", "printer.local.",
        "a.b.local", "a.b.local.",
    ])
    func unqualifiedAndDotLocalNamesAreExempt(host: String) {
        #expect(StreamTransportSecurity().requirements(forHost: host) == nil)
    }

    @Test func anEntryForAnUnqualifiedNameStillApplies() throws {
        let policy = StreamTransportSecurity(exceptionDomains: ["printer": Exception(minimumTLSVersion: .tls1_0)])
        let rules = try #require(policy.requirements(forHost: "Printer"))
        #expect(rules.exceptionDomain == "printer")
        #expect(rules.minimumVersion == .tls1_0)
    }

    @Test func localNetworkingExemptsIPLiteralsButNotNames() {
        let policy = StreamTransportSecurity(allowsLocalNetworking: true)
        for host in ["10.0.0.1", "192.168.1.20", "127.0.0.1", "::1", "[::1]", "[fe80::1]", "2001:db8::5"] {
            #expect(policy.requirements(forHost: host) == nil, "\(host)")
        }
        #expect(policy.requirements(forHost: "example.com") != nil)
        #expect(policy.requirements(forHost: "printer") == nil)
    }

    @Test func underLocalNetworkingAnEntryForTheAddressStillWins() throws {
        let policy = StreamTransportSecurity(
            allowsLocalNetworking: true,
            exceptionDomains: [
                "10.0.0.1": Exception(minimumTLSVersion: .tls1_1),
                "192.168.0.0/16": Exception(allowsInsecureHTTPLoads: true),
                "::1": Exception(minimumTLSVersion: .tls1_3),
            ])
        let exact = try #require(policy.requirements(forHost: "10.0.0.1"))
        #expect(exact.exceptionDomain == "10.0.0.1")
        #expect(exact.minimumVersion == .tls1_1)
        let range = try #require(policy.requirements(forHost: "192.168.7.7"))
        #expect(range.exceptionDomain == "192.168.0.0/16")
        #expect(range.allowsInsecureHTTPLoads)
        let loopback = try #require(policy.requirements(forHost: "[::1]"))
        #expect(loopback.exceptionDomain == "::1")
        #expect(loopback.minimumVersion == .tls1_3)
        #expect(policy.requirements(forHost: "10.0.0.2") == nil)
    }

    @Test func arbitraryLoadsExemptHostsWithoutAnEntryOnly() throws {
        let policy = StreamTransportSecurity(
            allowsArbitraryLoads: true,
            exceptionDomains: [
                "legacy.example.com": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
                "strict.example.com": Exception(),
                "10.0.0.0/8": Exception(),
            ])
        for host in ["example.com", "other.example.com", "1.2.3.4", "::1", "a.www.legacy.example.com"] {
            #expect(policy.requirements(forHost: host) == nil, "\(host)")
        }
        #expect(try #require(policy.requirements(forHost: "legacy.example.com")).minimumVersion == .tls1_0)
        #expect(try #require(policy.requirements(forHost: "www.legacy.example.com")).minimumVersion == .tls1_0)
        let strict = try #require(policy.requirements(forHost: "strict.example.com"))
        #expect(strict.exceptionDomain == "strict.example.com")
        #expect(strict.minimumVersion == .tls1_2)
        #expect(policy.requirements(forHost: "www.strict.example.com") == nil)
        #expect(try #require(policy.requirements(forHost: "10.20.30.40")).exceptionDomain == "10.0.0.0/8")
    }

    @Test func ofEntriesThatDifferOnlyInCaseTheLowercaseOneWinsEveryTime() throws {
        let entries = [
            "Example.com": Exception(minimumTLSVersion: .tls1_0),
            "example.com": Exception(minimumTLSVersion: .tls1_1),
            "EXAMPLE.COM": Exception(minimumTLSVersion: .tls1_3),
        ]
        let policy = StreamTransportSecurity(exceptionDomains: entries)
        #expect(try #require(policy.requirements(forHost: "example.com")).minimumVersion == .tls1_1)
        let loaded = try StreamTransportSecurity(dictionary: [
            "NSExceptionDomains": [
                "Example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.0"],
                "example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.1"],
                "EXAMPLE.COM": ["NSExceptionMinimumTLSVersion": "TLSv1.3"],
            ]
        ])
        #expect(loaded.exceptionDomains["example.com"]?.minimumTLSVersion == .tls1_1)
    }

    @Test func ofRangesAsNarrowTheFirstInCodePointOrderWins() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "10.9.0.0/8": Exception(minimumTLSVersion: .tls1_1),
            "10.0.0.0/8": Exception(minimumTLSVersion: .tls1_0),
            "10.5.0.0/8": Exception(minimumTLSVersion: .tls1_3),
        ])
        #expect(try #require(policy.requirements(forHost: "10.1.2.3")).exceptionDomain == "10.0.0.0/8")
    }

    @Test func anExactEntryCoversItsHostOnly() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "legacy.example.com": Exception(minimumTLSVersion: .tls1_0)
        ])
        let rules = try #require(policy.requirements(forHost: "legacy.example.com"))
        #expect(rules.exceptionDomain == "legacy.example.com")
        #expect(rules.minimumVersion == .tls1_0)
        for host in ["www.legacy.example.com", "example.com", "legacy.example.org", "xlegacy.example.com"] {
            let other = try #require(policy.requirements(forHost: host))
            #expect(other.exceptionDomain == nil, "\(host)")
            #expect(other.minimumVersion == .tls1_2, "\(host)")
        }
    }

    @Test(
        arguments: [
            ("example.com", "example.com"), ("www.example.com", "example.com"), ("api.example.com", "example.com"),
            ("a.www.example.com", nil), ("notexample.com", nil), ("example.com.evil.org", nil), ("com", nil),
        ] as [(String, String?)])
    func includesSubdomainsCoversOneMoreLabel(host: String, entry: String?) {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "example.com": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_1)
        ])
        let rules = policy.requirements(forHost: host)
        #expect(rules?.exceptionDomain == entry)
        if host != "com" {
            #expect(rules?.minimumVersion == (entry == nil ? .tls1_2 : .tls1_1))
        }
    }

    @Test func withoutIncludesSubdomainsNoSubdomainIsCovered() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "example.com": Exception(minimumTLSVersion: .tls1_1)
        ])
        #expect(try #require(policy.requirements(forHost: "example.com")).exceptionDomain == "example.com")
        #expect(try #require(policy.requirements(forHost: "www.example.com")).exceptionDomain == nil)
        #expect(try #require(policy.requirements(forHost: "www.example.com")).minimumVersion == .tls1_2)
    }

    @Test func anExactEntryBeatsItsParentsEntry() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "example.com": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
            "www.example.com": Exception(minimumTLSVersion: .tls1_3),
        ])
        let exact = try #require(policy.requirements(forHost: "www.example.com"))
        #expect(exact.exceptionDomain == "www.example.com")
        #expect(exact.minimumVersion == .tls1_3)
        let parent = try #require(policy.requirements(forHost: "api.example.com"))
        #expect(parent.exceptionDomain == "example.com")
        #expect(parent.minimumVersion == .tls1_0)
        // The exact entry does not extend to its own subdomains.
        #expect(try #require(policy.requirements(forHost: "a.www.example.com")).exceptionDomain == nil)
    }

    @Test func namesAndEntryKeysMatchWhateverTheirCase() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "Legacy.Example.COM": Exception(minimumTLSVersion: .tls1_0),
            "EXAMPLE.org": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_1),
            "2001:DB8::/32": Exception(minimumTLSVersion: .tls1_3),
        ])
        for host in ["legacy.example.com", "LEGACY.EXAMPLE.COM", "Legacy.example.Com"] {
            let rules = try #require(policy.requirements(forHost: host))
            #expect(rules.host == "legacy.example.com")
            #expect(rules.exceptionDomain == "legacy.example.com")
            #expect(rules.minimumVersion == .tls1_0)
        }
        let subdomain = try #require(policy.requirements(forHost: "WWW.Example.Org"))
        #expect(subdomain.exceptionDomain == "example.org")
        #expect(subdomain.minimumVersion == .tls1_1)
        let address = try #require(policy.requirements(forHost: "[2001:DB8::AB]"))
        #expect(address.exceptionDomain == "2001:db8::/32")
        #expect(address.minimumVersion == .tls1_3)
    }

    @Test(
        arguments: [
            ("127.0.0.1", "127.0.0.0/8"), ("127.255.255.254", "127.0.0.0/8"), ("128.0.0.1", nil),
            ("126.255.255.255", nil), ("10.1.0.1", "10.1.0.0/16"), ("10.1.255.255", "10.1.0.0/16"), ("10.2.0.1", nil),
            ("10.0.255.255", nil), ("172.16.0.1", "172.16.0.0/12"), ("172.31.255.255", "172.16.0.0/12"),
            ("172.32.0.0", nil), ("172.15.255.255", nil), ("2001:db8::1", "2001:db8::/32"),
            ("[2001:db8:ffff:ffff::1]", "2001:db8::/32"), ("2001:DB8:0:0:0:0:0:2", "2001:db8::/32"),
            ("2001:db9::1", nil), ("2001:db7:ffff::", nil), ("::1", nil), ("::ffff:127.0.0.1", nil),
            ("32.1.13.184", nil),
        ] as [(String, String?)])
    func rangesHoldTheirAddressesOnly(host: String, entry: String?) throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "127.0.0.0/8": Exception(allowsInsecureHTTPLoads: true),
            "10.1.0.0/16": Exception(allowsInsecureHTTPLoads: true),
            "172.16.0.0/12": Exception(allowsInsecureHTTPLoads: true),
            "2001:db8::/32": Exception(allowsInsecureHTTPLoads: true),
        ])
        let rules = try #require(policy.requirements(forHost: host))
        #expect(rules.exceptionDomain == entry)
        #expect(rules.allowsInsecureHTTPLoads == (entry != nil))
    }

    @Test(
        arguments: [
            ("10.1.2.3", "10.1.2.3"), ("10.1.2.4", "10.1.2.0/24"), ("10.1.3.4", "10.1.0.0/16"),
            ("10.9.9.9", "10.0.0.0/8"), ("11.0.0.1", nil), ("2001:db8:1:2::1", "2001:db8:1::/48"),
            ("2001:db8:2::1", "2001:db8::/32"),
        ] as [(String, String?)])
    func theNarrowestRangeWins(host: String, entry: String?) throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "10.0.0.0/8": Exception(minimumTLSVersion: .tls1_0),
            "10.1.2.0/24": Exception(minimumTLSVersion: .tls1_3),
            "10.1.0.0/16": Exception(minimumTLSVersion: .tls1_1),
            "10.1.2.3": Exception(requiresForwardSecrecy: false),
            "2001:db8::/32": Exception(minimumTLSVersion: .tls1_0),
            "2001:db8:1::/48": Exception(minimumTLSVersion: .tls1_3),
        ])
        let rules = try #require(policy.requirements(forHost: host))
        #expect(rules.exceptionDomain == entry)
    }

    @Test func aNameEntryNeverMatchesAnAddress() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "2.3.4": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
            "localhost": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
            "example.com": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
        ])
        for host in ["1.2.3.4", "127.0.0.1", "::1", "93.184.216.34"] {
            let rules = try #require(policy.requirements(forHost: host))
            #expect(rules.exceptionDomain == nil, "\(host)")
            #expect(rules.minimumVersion == .tls1_2, "\(host)")
        }
    }

    @Test func anAddressEntryNeverMatchesAName() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "127.0.0.0/8": Exception(minimumTLSVersion: .tls1_0),
            "93.184.216.34": Exception(minimumTLSVersion: .tls1_0),
            "::1": Exception(minimumTLSVersion: .tls1_0),
            // NSIncludesSubdomains has no effect on an address: it never covers a name.
            "1.2.3.4": Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0),
        ])
        #expect(policy.requirements(forHost: "www.1.2.3.4")?.exceptionDomain == nil)
        // `localhost` resolves to an address of the range, but ATS matches what was asked for.
        #expect(policy.requirements(forHost: "localhost") == nil)
        for host in ["example.com", "127.0.0.1.example.com", "www.example.com"] {
            let rules = try #require(policy.requirements(forHost: host))
            #expect(rules.exceptionDomain == nil, "\(host)")
        }
    }

    // Found by the ats-exceptions fuzz target (its inputs are in Fuzz/Regressions/ats-exceptions):
    // hosts were read by `Character`, and a dot or a percent sign followed by a combining mark is
    // another character.

    @Test(arguments: ["evil.\u{301}com", "a.\u{7A6}b", "printer.\u{301}", "x.\u{5B3}local"])
    func aDotBeforeACombiningMarkStillMakesANameQualified(host: String) throws {
        let rules = try #require(StreamTransportSecurity().requirements(forHost: host))
        #expect(rules.exceptionDomain == nil)
        #expect(rules.minimumVersion == .tls1_2)
    }

    @Test func anEntryStartingWithACombiningMarkCoversItsSubdomains() throws {
        let key = "\u{5B3}1.example"
        let policy = StreamTransportSecurity(exceptionDomains: [
            key: Exception(includesSubdomains: true, minimumTLSVersion: .tls1_0)
        ])
        let rules = try #require(policy.requirements(forHost: "www." + key))
        #expect(rules.exceptionDomain == key)
        #expect(rules.minimumVersion == .tls1_0)
        #expect(try #require(policy.requirements(forHost: "a.www." + key)).exceptionDomain == nil)
    }

    @Test func aZoneIsLeftOutOnlyAfterAnAddress() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "::1": Exception(minimumTLSVersion: .tls1_0), "8::/16": Exception(minimumTLSVersion: .tls1_0),
        ])
        // Nothing before the zone: a name without a dot, not the address after the sign.
        for host in ["%::1", "%8::"] {
            #expect(StreamTransportSecurity().requirements(forHost: host) == nil, "\(host)")
            #expect(policy.requirements(forHost: host) == nil, "\(host)")
        }
        #expect(try #require(policy.requirements(forHost: "[::1%lo]")).exceptionDomain == "::1")
        // A zone that starts with a combining mark still follows an address.
        let zoned = "fe80::1%\u{301}eth0"
        #expect(try #require(StreamTransportSecurity().requirements(forHost: zoned)).exceptionDomain == nil)
        #expect(StreamTransportSecurity(allowsLocalNetworking: true).requirements(forHost: zoned) == nil)
    }

    @Test func theRequirementsCarryTheMatchedException() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "legacy.example.com": Exception(
                includesSubdomains: true, allowsInsecureHTTPLoads: true, minimumTLSVersion: .tls1_1,
                requiresForwardSecrecy: false)
        ])
        let rules = try #require(policy.requirements(forHost: "Media.Legacy.Example.com"))
        #expect(rules.host == "media.legacy.example.com")
        #expect(rules.exceptionDomain == "legacy.example.com")
        #expect(rules.minimumVersion == .tls1_1)
        #expect(!rules.requiresForwardSecrecy)
        #expect(rules.allowsInsecureHTTPLoads)
        #expect(rules.handshake.cipherSuites.contains("RSA+AESGCM"))
        #expect(rules.handshake.cipherSuites.hasPrefix("ECDHE+AESGCM"))
    }

    /// Hosts the rules treat alike share one TLS context; different rules get their own.
    @Test func hostsTheRulesTreatAlikeShareATLSContext() throws {
        let policy = StreamTransportSecurity(exceptionDomains: [
            "legacy.example.com": Exception(minimumTLSVersion: .tls1_0)
        ])
        func configuration(for host: String) -> StreamTLSConfiguration {
            var tls = StreamTLSConfiguration()
            tls.transportSecurity = policy.requirements(forHost: host)
            return tls
        }
        func key(for host: String) -> TLSContextKey { TLSContextKey(configuration(for: host), isServer: false) }
        func context(for host: String) throws -> AnyObject { try configuration(for: host).context(isServer: false) }
        #expect(key(for: "a.example.org") == key(for: "b.example.org"))
        #expect(key(for: "a.example.org") != key(for: "legacy.example.com"))
        #expect(key(for: "a.example.org") != key(for: "printer"))
        // Equal keys get one context from the process-wide cache. Tests running beside this one
        // fill that cache too, and a full cache starts over, which may fall between two look-ups
        // (seen once in a full run); it cannot plausibly do so three times running.
        let shared = try (0..<3).contains { _ in try context(for: "a.example.org") === context(for: "b.example.org") }
        #expect(shared)
        #expect(try context(for: "a.example.org") !== context(for: "legacy.example.com"))
        #expect(try context(for: "a.example.org") !== context(for: "printer"))
    }

    // MARK: Loading the dictionary

    private static var settings: [String: Any] {
        [
            "NSAllowsLocalNetworking": true,
            "NSExceptionDomains": [
                "Legacy.Example.com": [
                    "NSIncludesSubdomains": true,
                    "NSExceptionAllowsInsecureHTTPLoads": true,
                    "NSExceptionMinimumTLSVersion": "TLSv1.1",
                    "NSExceptionRequiresForwardSecrecy": false,
                ],
                "10.0.0.0/8": ["NSExceptionAllowsInsecureHTTPLoads": false],
            ],
        ]
    }

    private static let expected = StreamTransportSecurity(
        allowsLocalNetworking: true,
        exceptionDomains: [
            "legacy.example.com": Exception(
                includesSubdomains: true, allowsInsecureHTTPLoads: true, minimumTLSVersion: .tls1_1,
                requiresForwardSecrecy: false),
            "10.0.0.0/8": Exception(),
        ])

    @Test func theBareDictionaryLoads() throws {
        #expect(try StreamTransportSecurity(dictionary: Self.settings) == Self.expected)
        #expect(try StreamTransportSecurity(dictionary: [:]) == StreamTransportSecurity())
    }

    @Test func aWholeInfoPlistLoads() throws {
        let info: [String: Any] = [
            "CFBundleIdentifier": "com.example.app",
            "CFBundleVersion": "1",
            "NSAppTransportSecurity": Self.settings,
        ]
        #expect(try StreamTransportSecurity(dictionary: info) == Self.expected)
        // Without the key, nothing at the top level is an ATS setting.
        let bare: [String: Any] = ["CFBundleIdentifier": "com.example.app"]
        #expect(try StreamTransportSecurity(dictionary: bare) == StreamTransportSecurity())
    }

    @Test func booleansAreRead() throws {
        let on = try StreamTransportSecurity(dictionary: [
            "NSAllowsArbitraryLoads": true,
            "NSExceptionDomains": [
                "example.com": [
                    "NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true,
                    "NSExceptionRequiresForwardSecrecy": true,
                ]
            ],
        ])
        #expect(on.allowsArbitraryLoads)
        #expect(!on.allowsLocalNetworking)
        let both = Exception(includesSubdomains: true, allowsInsecureHTTPLoads: true)
        #expect(on.exceptionDomains["example.com"] == both)
        let off = try StreamTransportSecurity(dictionary: [
            "NSAllowsArbitraryLoads": false,
            "NSExceptionDomains": [
                "example.com": [
                    "NSIncludesSubdomains": false, "NSExceptionAllowsInsecureHTTPLoads": false,
                    "NSExceptionRequiresForwardSecrecy": false,
                ]
            ],
        ])
        #expect(!off.allowsArbitraryLoads)
        #expect(off.exceptionDomains["example.com"] == Exception(requiresForwardSecrecy: false))
        let local = try StreamTransportSecurity(dictionary: ["NSAllowsLocalNetworking": true])
        #expect(local.allowsLocalNetworking)
    }

    @Test(arguments: [
        ("TLSv1.0", StreamTLSConfiguration.Version.tls1_0), ("TLSv1.1", .tls1_1), ("TLSv1.2", .tls1_2),
        ("TLSv1.3", .tls1_3),
    ])
    func minimumVersionsAreRead(text: String, version: StreamTLSConfiguration.Version) throws {
        let policy = try StreamTransportSecurity(dictionary: [
            "NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": text]]
        ])
        #expect(policy.exceptionDomains["example.com"]?.minimumTLSVersion == version)
        #expect(try #require(policy.requirements(forHost: "example.com")).minimumVersion == version)
    }

    @Test(arguments: [
        "NSAllowsLocalNetworking", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
    ])
    func arbitraryLoadsAreIgnoredBesideAnOverridingKey(key: String) throws {
        #expect(try StreamTransportSecurity(dictionary: ["NSAllowsArbitraryLoads": true]).allowsArbitraryLoads)
        for value in [true, false] {
            let policy = try StreamTransportSecurity(dictionary: ["NSAllowsArbitraryLoads": true, key: value])
            #expect(!policy.allowsArbitraryLoads, "\(key) = \(value)")
            #expect(policy.allowsLocalNetworking == (key == "NSAllowsLocalNetworking" && value))
            #expect(policy.requirements(forHost: "example.com") != nil)
            let nested = try StreamTransportSecurity(dictionary: [
                "NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true, key: value]
            ])
            #expect(!nested.allowsArbitraryLoads, "nested \(key) = \(value)")
        }
    }

    private static let entry = "NSExceptionDomains[\"example.com\"]"

    @Test(arguments: [
        ("NSAppTransportSecurity", "NSAppTransportSecurity"),
        ("NSAllowsArbitraryLoads", "NSAllowsArbitraryLoads"),
        ("NSAllowsLocalNetworking", "NSAllowsLocalNetworking"),
        ("domains", "NSExceptionDomains"),
        ("entry", entry),
        ("NSIncludesSubdomains", entry + ".NSIncludesSubdomains"),
        ("NSExceptionAllowsInsecureHTTPLoads", entry + ".NSExceptionAllowsInsecureHTTPLoads"),
        ("NSExceptionRequiresForwardSecrecy", entry + ".NSExceptionRequiresForwardSecrecy"),
        ("TLSv1.4", entry + ".NSExceptionMinimumTLSVersion"),
        ("tlsv1.2", entry + ".NSExceptionMinimumTLSVersion"),
        ("1.2", entry + ".NSExceptionMinimumTLSVersion"),
        ("version as a Boolean", entry + ".NSExceptionMinimumTLSVersion"),
    ])
    func aWrongValueIsAnErrorNamingItsKey(wrong: String, keyPath: String) {
        let dictionary: [String: Any] =
            switch wrong {
            case "NSAppTransportSecurity": ["NSAppTransportSecurity": "YES"]
            case "NSAllowsArbitraryLoads", "NSAllowsLocalNetworking": [wrong: "YES"]
            case "domains": ["NSExceptionDomains": ["example.com"]]
            case "entry": ["NSExceptionDomains": ["example.com": true]]
            case "version as a Boolean":
                ["NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": true]]]
            case "TLSv1.4", "tlsv1.2", "1.2":
                ["NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": wrong]]]
            default: ["NSExceptionDomains": ["example.com": [wrong: "YES"]]]
            }
        let error = #expect(throws: StreamTaskError.self) { try StreamTransportSecurity(dictionary: dictionary) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(keyPath) == true, "\(error?.message ?? "")")
        if keyPath.hasSuffix("NSExceptionMinimumTLSVersion") {
            #expect(error?.message.contains("TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3") == true)
        }
    }

    @Test func keysForOtherSystemsAreAccepted() throws {
        let policy = try StreamTransportSecurity(dictionary: [
            "NSAppTransportSecurity": [
                "NSPinnedDomains": [
                    "example.com": [
                        "NSIncludesSubdomains": true,
                        "NSPinnedLeafIdentities": [
                            ["SPKI-SHA256-BASE64": "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
                        ],
                    ]
                ],
                "NSRequiresCertificateTransparency": true,
                "NSExceptionDomains": [
                    "example.com": [
                        "NSRequiresCertificateTransparency": true, "NSExceptionMinimumTLSVersion": "TLSv1.2",
                    ]
                ],
            ]
        ])
        #expect(policy == StreamTransportSecurity(exceptionDomains: ["example.com": Exception()]))
    }

    // MARK: Loading files

    /// Writes `data` to a new temporary file, runs `body` with its URL, and removes it.
    private func withTemporaryFile<T>(
        _ data: Data, extension pathExtension: String, _ body: (URL) throws -> T
    ) throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ats-\(UUID().uuidString)").appendingPathExtension(pathExtension)
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    @Test func anXMLPropertyListFileLoads() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>CFBundleIdentifier</key>
                <string>com.example.app</string>
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsLocalNetworking</key>
                    <true/>
                    <key>NSExceptionDomains</key>
                    <dict>
                        <key>Legacy.Example.com</key>
                        <dict>
                            <key>NSIncludesSubdomains</key>
                            <true/>
                            <key>NSExceptionAllowsInsecureHTTPLoads</key>
                            <true/>
                            <key>NSExceptionMinimumTLSVersion</key>
                            <string>TLSv1.1</string>
                            <key>NSExceptionRequiresForwardSecrecy</key>
                            <false/>
                        </dict>
                        <key>10.0.0.0/8</key>
                        <dict/>
                    </dict>
                </dict>
            </dict>
            </plist>
            """
        let policy = try withTemporaryFile(Data(xml.utf8), extension: "plist") {
            try StreamTransportSecurity(contentsOf: $0)
        }
        #expect(policy == Self.expected)
        // The same, written by Foundation.
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["NSAppTransportSecurity": Self.settings], format: .xml, options: 0)
        #expect(
            try withTemporaryFile(data, extension: "plist") { try StreamTransportSecurity(contentsOf: $0) }
                == Self.expected)
    }

    @Test func aBinaryPropertyListFileLoads() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: Self.settings, format: .binary, options: 0)
        #expect(data.starts(with: Data("bplist".utf8)))
        let policy = try withTemporaryFile(data, extension: "plist") { try StreamTransportSecurity(contentsOf: $0) }
        #expect(policy == Self.expected)
    }

    @Test func aJSONFileLoads() throws {
        let json = """

              { "NSAppTransportSecurity": {
                "NSAllowsLocalNetworking": true,
                "NSExceptionDomains": {
                  "Legacy.Example.com": { "NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true,
                    "NSExceptionMinimumTLSVersion": "TLSv1.1", "NSExceptionRequiresForwardSecrecy": false },
                  "10.0.0.0/8": { "NSExceptionAllowsInsecureHTTPLoads": false }
                } } }
            """
        let policy = try withTemporaryFile(Data(json.utf8), extension: "json") {
            try StreamTransportSecurity(contentsOf: $0)
        }
        #expect(policy == Self.expected)
        let bare = #"{"NSAllowsArbitraryLoads": true, "NSExceptionDomains": {"a.example": {}}}"#
        let loaded = try withTemporaryFile(Data(bare.utf8), extension: "json") {
            try StreamTransportSecurity(contentsOf: $0)
        }
        #expect(loaded == StreamTransportSecurity(allowsArbitraryLoads: true, exceptionDomains: ["a.example": .init()]))
    }

    @Test(arguments: ["hello, world\n", "{ \"NSAllowsArbitraryLoads\": tru", "<plist><dict><key>a</key></plist>", ""])
    func aFileThatIsNeitherIsAClearError(text: String) throws {
        try withTemporaryFile(Data(text.utf8), extension: "txt") { url in
            let error = #expect(throws: StreamTaskError.self) { try StreamTransportSecurity(contentsOf: url) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains(url.path) == true)
            #expect(error?.message.contains("neither a property list nor JSON") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aFileHoldingNoDictionaryIsAClearError() throws {
        let array = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0)
        try withTemporaryFile(array, extension: "plist") { url in
            let error = #expect(throws: StreamTaskError.self) { try StreamTransportSecurity(contentsOf: url) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("does not hold a dictionary") == true, "\(error?.message ?? "")")
        }
        let wrong = Data(#"{"NSAllowsLocalNetworking": "yes"}"#.utf8)
        try withTemporaryFile(wrong, extension: "json") { url in
            let error = #expect(throws: StreamTaskError.self) { try StreamTransportSecurity(contentsOf: url) }
            #expect(error?.message.contains("NSAllowsLocalNetworking") == true)
        }
    }

    // MARK: Refusals and codes

    private func rules(
        _ host: String, _ exceptions: [String: Exception] = [:]
    ) throws -> TransportSecurityRequirements {
        try #require(StreamTransportSecurity(exceptionDomains: exceptions).requirements(forHost: host))
    }

    private struct Underlying: Error {}

    @Test func anInsecureHTTPRefusalNamesTheKeyAndANewEntry() throws {
        let error = try rules("Example.com").insecureHTTPRefusal(url: "http://example.com/page")
        #expect(error.code == .transportSecurityRequiresSecureConnection)
        #expect(error.urlError.code == .appTransportSecurityRequiresSecureConnection)
        #expect(error.urlErrorCode.rawValue == -1022)
        #expect(error.message.contains("http://example.com/page"))
        #expect(error.message.contains("set NSExceptionAllowsInsecureHTTPLoads to YES"))
        #expect(error.message.contains(#"in an NSExceptionDomains entry for "example.com""#))
        #expect(!error.message.contains("NSAllowsLocalNetworking"))
    }

    @Test func aRefusalNamesTheEntryThatMatched() throws {
        let exceptions = ["example.com": Exception(includesSubdomains: true), "10.0.0.0/8": Exception()]
        let name = try rules("www.example.com", exceptions).insecureHTTPRefusal(url: "http://www.example.com/")
        #expect(name.message.contains(#"in its NSExceptionDomains entry "example.com""#))
        #expect(!name.message.contains("entry for"))
        let range = try rules("10.1.2.3", exceptions).versionRefusal(underlying: Underlying())
        #expect(range.message.contains(#"in its NSExceptionDomains entry "10.0.0.0/8""#))
        #expect(!range.message.contains("NSAllowsLocalNetworking"))
    }

    @Test(arguments: [("192.168.1.10", "192.168.1.10"), ("[fe80::1]", "fe80::1"), ("::1", "::1")])
    func aRefusalForAnAddressWithoutAnEntrySuggestsLocalNetworking(host: String, text: String) throws {
        let error = try rules(host).insecureHTTPRefusal(url: "http://\(host)/")
        #expect(error.message.contains("in an NSExceptionDomains entry for \"\(text)\""))
        #expect(error.message.contains("(or set NSAllowsLocalNetworking to YES)"))
    }

    @Test func theTLSRefusalsNameTheirKeysAndCodes() throws {
        let rules = try rules("old.example.com")
        let version = rules.versionRefusal(underlying: Underlying())
        #expect(version.code == .transportSecurityMinimumVersion)
        #expect(version.message.contains("TLS 1.2 or newer"))
        #expect(version.message.contains("old.example.com"))
        #expect(version.message.contains("set NSExceptionMinimumTLSVersion to"))
        #expect(version.message.contains(#"entry for "old.example.com""#))
        #expect(version.underlyingError is Underlying)
        let suites = rules.cipherSuiteRefusal(underlying: Underlying())
        #expect(suites.code == .transportSecurityCipherSuite)
        #expect(suites.message.contains("set NSExceptionRequiresForwardSecrecy to NO"))
        #expect(suites.message.contains(#"entry for "old.example.com""#))
        for error in [version, suites] {
            #expect(error.urlError.code == .secureConnectionFailed)
        }
        let lowered = try self.rules("old.example.com", ["old.example.com": Exception(minimumTLSVersion: .tls1_1)])
        #expect(lowered.versionRefusal(underlying: Underlying()).message.contains("TLS 1.1 or newer"))
    }

    @Test func aTrustRefusalNamesWhatLoosenedItAndWraps() throws {
        let cause = StreamTaskError(.tlsUntrustedCertificate, "the chain does not lead to a trusted root")
        let error = try rules("example.com").trustRefusal(loosenedBy: "a pin", refusal: cause)
        #expect(error.code == .transportSecurityTrust)
        #expect(error.urlError.code == .serverCertificateUntrusted)
        #expect(error.message.contains("a pin"))
        #expect(error.message.contains(cause.message))
        #expect(error.message.contains("set NSExceptionAllowsInsecureHTTPLoads to YES"))
        #expect((error.underlyingError as? StreamTaskError)?.code == .tlsUntrustedCertificate)
    }

    private static let transportSecurityCodes: [StreamTaskError.Code] = [
        .transportSecurityRequiresSecureConnection, .transportSecurityMinimumVersion, .transportSecurityCipherSuite,
        .transportSecurityKeySize, .transportSecurityHashAlgorithm, .transportSecurityTrust,
    ]

    private static let otherCodes: [StreamTaskError.Code] = [
        .invalidArgument, .timedOut, .cancelled, .hostNotFound, .connectionRefused, .unreachable, .connectTimeout,
        .connectionReset, .connectionFailed, .proxyConnectFailed, .proxyAuthenticationRequired, .proxyRefused,
        .proxyProtocolError, .proxyHandshakeTimeout, .connectionClosed, .readClosed, .writeClosed,
        .delimiterNotFound, .sessionInvalidated, .listenerClosed, .bindFailed, .tlsHandshakeFailed,
        .tlsUntrustedCertificate, .tlsHostnameMismatch, .tlsCertificateExpired, .tlsVersionTooOld, .tlsPinMismatch,
        .tlsPlaintextInjection, .tlsTruncated, .tlsNotActive, .tlsConfigurationInvalid, .streamsCaptured,
        .httpProtocolError,
    ]

    @Test func exactlyTheSixTransportSecurityCodesAreTransportSecurity() {
        #expect(Set(Self.transportSecurityCodes).count == 6)
        for code in Self.transportSecurityCodes {
            #expect(code.isTransportSecurity, "\(code)")
        }
        for code in Self.otherCodes {
            #expect(!code.isTransportSecurity, "\(code)")
        }
    }

    @Test func theTransportSecurityCodesMapToApplesURLErrors() {
        let expected: [StreamTaskError.Code: URLError.Code] = [
            .transportSecurityRequiresSecureConnection: .appTransportSecurityRequiresSecureConnection,
            .transportSecurityMinimumVersion: .secureConnectionFailed,
            .transportSecurityCipherSuite: .secureConnectionFailed,
            .transportSecurityKeySize: .secureConnectionFailed,
            .transportSecurityHashAlgorithm: .secureConnectionFailed,
            .transportSecurityTrust: .serverCertificateUntrusted,
        ]
        for code in Self.transportSecurityCodes {
            let error = StreamTaskError(code, "refused")
            #expect(error.urlErrorCode == expected[code], "\(code)")
            #expect(error.urlError.code == expected[code], "\(code)")
            #expect(error.urlError.streamTaskError?.code == code)
            #expect((error as NSError).code == expected[code]?.rawValue)
        }
    }

    // MARK: Certificates

    @Test func anRSA2048SHA256CertificateIsStrong() async throws {
        let certificates = try await GeneratedCertificates.get()
        let strength = try #require(CertificateStrength(der: certificates.rsa2048))
        #expect(strength.keyKind == "RSA")
        #expect(strength.keyBits == 2048)
        #expect(strength.hasStrongKey)
        #expect(strength.signatureAlgorithm == "sha256WithRSAEncryption")
        #expect(strength.hasStrongSignatureHash)
        #expect(!strength.isSelfIssued)
        #expect(strength.keyDescription == "RSA 2048-bit")
    }

    @Test func anRSA1024KeyIsWeak() async throws {
        let certificates = try await GeneratedCertificates.get()
        let strength = try #require(CertificateStrength(der: certificates.rsa1024))
        #expect(strength.keyKind == "RSA")
        #expect(strength.keyBits == 1024)
        #expect(!strength.hasStrongKey)
        #expect(strength.keyDescription == "RSA 1024-bit")
        // Signed by the CA with SHA-256: only the key is weak.
        #expect(strength.hasStrongSignatureHash)
    }

    @Test func anRSAPSSSignatureIsAsStrongAsTheHashItsParametersName() async throws {
        let certificates = try await GeneratedCertificates.get()
        let sha256 = try #require(CertificateStrength(der: certificates.pssSHA256Root))
        #expect(sha256.signatureAlgorithm == "rsassaPss-with-SHA256")
        #expect(sha256.hasStrongSignatureHash)
        #expect(sha256.keyKind == "RSA")
        let sha1 = try #require(CertificateStrength(der: certificates.pssSHA1Root))
        #expect(sha1.signatureAlgorithm == "rsassaPss-with-SHA1")
        #expect(!sha1.hasStrongSignatureHash)
    }

    @Test func ecKeysReportTheirCurveSize() async throws {
        let certificates = try await GeneratedCertificates.get()
        let p256 = try #require(CertificateStrength(der: certificates.ecP256))
        #expect(p256.keyKind == "EC")
        #expect(p256.keyBits == 256)
        #expect(p256.hasStrongKey)
        #expect(p256.keyDescription == "EC 256-bit")
        let p384 = try #require(CertificateStrength(der: certificates.ecP384))
        #expect(p384.keyKind == "EC")
        #expect(p384.keyBits == 384)
        #expect(p384.hasStrongKey)
        let root = try #require(CertificateStrength(der: certificates.ecRoot))
        #expect(root.keyBits == 256)
        #expect(root.signatureAlgorithm == "ecdsa-with-SHA256")
        #expect(root.hasStrongSignatureHash)
        #expect(root.isSelfIssued)
    }

    @Test func anEd25519CertificateIsStrong() async throws {
        let certificates = try await GeneratedCertificates.get()
        let strength = try #require(CertificateStrength(der: certificates.ed25519Root))
        #expect(strength.keyKind == "Ed25519")
        #expect(strength.signatureAlgorithm == "Ed25519")
        #expect(strength.hasStrongKey)
        #expect(strength.hasStrongSignatureHash)
    }

    @Test func aSHA1SignatureIsWeak() async throws {
        let certificates = try await GeneratedCertificates.get()
        let strength = try #require(CertificateStrength(der: certificates.sha1Signed))
        #expect(strength.signatureAlgorithm == "sha1WithRSAEncryption")
        #expect(!strength.hasStrongSignatureHash)
        #expect(strength.keyBits == 2048)
        #expect(!strength.isSelfIssued)
    }

    @Test func aRootIsSelfIssuedAndALeafIsNot() async throws {
        let certificates = try await GeneratedCertificates.get()
        for root in [certificates.caRoot, certificates.sha1Root, certificates.ecRoot, certificates.ed25519Root] {
            #expect(try #require(CertificateStrength(der: root)).isSelfIssued)
        }
        for leaf in [certificates.rsa2048, certificates.rsa1024, certificates.ecP256, certificates.sha1Signed] {
            #expect(try !#require(CertificateStrength(der: leaf)).isSelfIssued)
        }
        let root = try #require(CertificateStrength(der: certificates.caRoot))
        #expect(root.keyBits == 2048)
        #expect(root.signatureAlgorithm == "sha256WithRSAEncryption")
    }

    @Test func theCertificateRefusalsFindTheWeakCertificate() async throws {
        let certificates = try await GeneratedCertificates.get()
        let rules = try rules("example.com")
        #expect(rules.certificateRefusal(chain: [certificates.rsa2048, certificates.caRoot]) == nil)
        #expect(
            rules.certificateRefusal(chain: [certificates.ecP256, certificates.ecP384, certificates.caRoot]) == nil)
        // A root's own SHA-1 signature proves nothing, and is allowed.
        #expect(rules.certificateRefusal(chain: [certificates.rsa2048, certificates.sha1Root]) == nil)

        let hash = try #require(rules.certificateRefusal(chain: [certificates.sha1Signed, certificates.caRoot]))
        #expect(hash.code == .transportSecurityHashAlgorithm)
        #expect(hash.urlError.code == .secureConnectionFailed)
        #expect(hash.message.contains("the server's certificate for example.com is signed with sha1WithRSAEncryption"))
        #expect(hash.message.contains("NSAllowsArbitraryLoads"))
        let second = try #require(rules.certificateRefusal(chain: [certificates.rsa2048, certificates.sha1Signed]))
        #expect(second.message.contains("certificate 2 of its chain"))

        let key = try #require(rules.certificateRefusal(chain: [certificates.rsa1024, certificates.caRoot]))
        #expect(key.code == .transportSecurityKeySize)
        #expect(key.message.contains("RSA 1024-bit"))
        #expect(key.message.contains("set NSExceptionRequiresForwardSecrecy to NO"))
        #expect(key.message.contains(#"entry for "example.com""#))

        let unread = try #require(rules.certificateRefusal(chain: [[0x30, 0x03, 0x02, 0x01, 0x00]]))
        #expect(unread.code == .transportSecurityHashAlgorithm)
        #expect(unread.message.contains("could not read"))

        let relaxed = try self.rules("example.com", ["example.com": Exception(requiresForwardSecrecy: false)])
        #expect(relaxed.certificateRefusal(chain: [certificates.rsa1024, certificates.caRoot]) == nil)
        // No exception lifts the hash rule.
        #expect(relaxed.certificateRefusal(chain: [certificates.sha1Signed])?.code == .transportSecurityHashAlgorithm)
    }

    // MARK: Malformed DER

    @Test func everyTruncationOfACertificateIsRefusedWithoutATrap() async throws {
        let certificates = try await GeneratedCertificates.get()
        for der in [certificates.rsa2048, certificates.ecP256, certificates.rsa1024] {
            #expect(CertificateStrength(der: der) != nil)
            for length in 0..<der.count {
                let prefix = Array(der.prefix(length))
                #expect(CertificateStrength(der: prefix) == nil, "length \(length)")
                if length > 0 {
                    #expect(DERReader(prefix[...]).all() == nil, "length \(length)")
                }
            }
            // Bytes after the certificate are not a certificate either.
            #expect(CertificateStrength(der: der + [0x00]) == nil)
        }
    }

    @Test func corruptedCertificatesNeverTrap() async throws {
        let certificates = try await GeneratedCertificates.get()
        let der = certificates.rsa2048
        var parsed = 0
        for index in der.indices {
            for value: UInt8 in [0x00, 0x7f, 0x80, 0x84, 0xff] {
                var corrupted = der
                corrupted[index] = value
                if CertificateStrength(der: corrupted) != nil { parsed += 1 }
            }
        }
        // Most corruptions leave the structure intact (they land in the key or the signature).
        #expect(parsed > 0)
    }

    @Test func randomBytesAreNotACertificate() {
        var generator = SplitMix64(seed: 0x5EED_A75)
        for round in 0..<2000 {
            let count = Int.random(in: 0..<400, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Half the time, start like a certificate, to get past the first element.
            if round.isMultiple(of: 2), bytes.count > 4 {
                bytes[0] = DERReader.sequence
                bytes[1] = 0x82
                bytes[2] = UInt8((count - 4) >> 8)
                bytes[3] = UInt8((count - 4) & 0xff)
            }
            #expect(CertificateStrength(der: bytes) == nil, "round \(round)")
            _ = DERReader(bytes[...]).all()?.map { $0.children?.map { DERReader.dotted($0.contents) } }
        }
    }

    @Test(arguments: [
        [UInt8](), [0x30], [0x30, 0x80], [0x30, 0x85, 1, 0, 0, 0, 0], [0x30, 0x84, 0xff, 0xff, 0xff, 0xff],
        [0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00], [0x30, 0x82, 0x01], [0x30, 0x02, 0x30], [0x30, 0x00],
        [0x30, 0x02, 0x30, 0x00], [0x30, 0x04, 0x30, 0x00, 0x30, 0x00], [0x02, 0x01, 0x00],
    ])
    func malformedElementsAreRefused(bytes: [UInt8]) {
        #expect(CertificateStrength(der: bytes) == nil)
    }

    @Test func malformedLengthsGiveNoElement() {
        #expect(DERReader([0x30, 0x80][...]).all() == nil)
        #expect(DERReader([0x30, 0x85, 1, 0, 0, 0, 0][...]).all() == nil)
        #expect(DERReader([0x30, 0x84, 0xff, 0xff, 0xff, 0xff][...]).all() == nil)
        #expect(DERReader([0x30, 0x03, 0x01][...]).all() == nil)
        #expect(DERReader([0x30][...]).all() == nil)
        let two = DERReader([0x02, 0x01, 0x05, 0x30, 0x81, 0x01, 0x00][...]).all()
        #expect(two?.map(\.tag) == [0x02, 0x30])
        #expect(two?.map { Array($0.contents) } == [[0x05], [0x00]])
    }

    @Test func objectIdentifiersAreDotted() {
        #expect(DERReader.dotted([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]) == "1.2.840.113549.1.1.11")
        #expect(DERReader.dotted([0x2b, 0x65, 0x70]) == "1.3.101.112")
        #expect(DERReader.dotted([0x2b, 0x81, 0x04, 0x00, 0x22]) == "1.3.132.0.34")
        #expect(DERReader.dotted([]) == "")
        // An arc too long for an Int stops rather than overflowing.
        _ = DERReader.dotted(ArraySlice(repeating: 0xff, count: 64))
        _ = DERReader.dotted(ArraySlice([0x2a] + [UInt8](repeating: 0x81, count: 40) + [0x01]))
    }
}

/// Certificates made once per test process with the `openssl` command-line tool, in a temporary
/// directory that is removed once they are read: DER bytes for each.
private struct GeneratedCertificates: Sendable {
    /// RSA 2048, self-signed with SHA-256: the CA that issued the leaves.
    var caRoot: [UInt8] = []
    /// RSA 2048, self-signed with SHA-1.
    var sha1Root: [UInt8] = []
    /// EC P-256, self-signed (ecdsa-with-SHA256).
    var ecRoot: [UInt8] = []
    /// Ed25519, self-signed.
    var ed25519Root: [UInt8] = []
    /// Leaves issued by the CA with SHA-256 (a v3 certificate for the first, v1 for the others).
    var rsa2048: [UInt8] = []
    var rsa1024: [UInt8] = []
    var ecP256: [UInt8] = []
    var ecP384: [UInt8] = []
    /// RSA 2048, issued by the CA with SHA-1.
    var sha1Signed: [UInt8] = []
    /// RSA 2048, self-signed with RSASSA-PSS over SHA-256, and over SHA-1.
    var pssSHA256Root: [UInt8] = []
    var pssSHA1Root: [UInt8] = []

    private static let shared = Task {
        try await offCooperativePool { Result { try make() } }.get()
    }

    static func get() async throws -> GeneratedCertificates { try await shared.value }

    private static func make() throws -> GeneratedCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("streamtaskkit-ats-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = { (arguments: [String]) in try TestCertificates.openssl(arguments, in: directory.path) }
        try "subjectAltName=DNS:example.com\n".write(
            to: directory.appendingPathComponent("leaf.ext"), atomically: true, encoding: .utf8)

        func root(_ name: String, _ key: [String], _ extra: [String] = []) throws -> [UInt8] {
            try run(
                ["req", "-x509", "-newkey"] + key + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).pem"]
                    + ["-days", "10", "-subj", "/CN=\(name)"] + extra)
            return try der(name)
        }
        func leaf(_ name: String, _ key: [String], _ extra: [String] = []) throws -> [UInt8] {
            try run(
                ["req", "-newkey"] + key + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).csr"]
                    + ["-subj", "/CN=\(name)"])
            try run(
                ["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"]
                    + ["-out", "\(name).pem", "-days", "10"] + extra)
            return try der(name)
        }
        func der(_ name: String) throws -> [UInt8] {
            try run(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
            return try [UInt8](Data(contentsOf: directory.appendingPathComponent("\(name).der")))
        }

        var certificates = GeneratedCertificates()
        certificates.caRoot = try root("ca", ["rsa:2048"], ["-sha256"])
        certificates.sha1Root = try root("sha1root", ["rsa:2048"], ["-sha1"])
        certificates.ecRoot = try root("ecroot", ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], ["-sha256"])
        certificates.ed25519Root = try root("edroot", ["ed25519"])
        certificates.rsa2048 = try leaf("rsa2048", ["rsa:2048"], ["-sha256", "-extfile", "leaf.ext"])
        certificates.rsa1024 = try leaf("rsa1024", ["rsa:1024"], ["-sha256"])
        certificates.ecP256 = try leaf("p256", ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], ["-sha256"])
        certificates.ecP384 = try leaf("p384", ["ec", "-pkeyopt", "ec_paramgen_curve:secp384r1"], ["-sha256"])
        certificates.sha1Signed = try leaf("sha1", ["rsa:2048"], ["-sha1"])
        let pss = ["-sigopt", "rsa_padding_mode:pss"]
        certificates.pssSHA256Root = try root("pss256", ["rsa:2048"], ["-sha256"] + pss)
        certificates.pssSHA1Root = try root("pss1", ["rsa:2048"], ["-sha1"] + pss)
        return certificates
    }
}
