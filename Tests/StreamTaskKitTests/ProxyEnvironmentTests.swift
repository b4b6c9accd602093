//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import StreamTaskCore

/// Proxy URLs, the proxy variables and `no_proxy`, as plain values: every rule of curl's that
/// the library follows.
@Suite struct ProxyEnvironmentTests {
    // MARK: Which variable applies

    private func proxyHost(
        _ variables: [String: String], for host: String = "example.com", port: Int = 443
    ) throws
        -> String?
    {
        try ProxyEnvironment(variables: variables).endpoint(host: host, port: port)?.host
    }

    @Test func httpsProxyThenAllProxyLowercaseFirst() throws {
        #expect(try proxyHost([:]) == nil)
        #expect(try proxyHost(["https_proxy": "a", "HTTPS_PROXY": "b", "all_proxy": "c", "ALL_PROXY": "d"]) == "a")
        #expect(try proxyHost(["HTTPS_PROXY": "b", "all_proxy": "c", "ALL_PROXY": "d"]) == "b")
        #expect(try proxyHost(["all_proxy": "c", "ALL_PROXY": "d"]) == "c")
        #expect(try proxyHost(["ALL_PROXY": "d"]) == "d")
    }

    @Test func emptyVariablesCountAsUnset() throws {
        #expect(try proxyHost(["https_proxy": "", "HTTPS_PROXY": "b"]) == "b")
        #expect(try proxyHost(["https_proxy": "", "all_proxy": "c"]) == "c")
        #expect(try proxyHost(["https_proxy": ""]) == nil)
        #expect(try proxyHost(["https_proxy": "a", "no_proxy": "", "NO_PROXY": "example.com"]) == nil)
    }

    @Test func httpProxyIsNotRead() throws {
        #expect(try proxyHost(["http_proxy": "a", "HTTP_PROXY": "b"]) == nil)
    }

    @Test func noProxyLowercaseFirst() throws {
        let variables = ["https_proxy": "p", "no_proxy": "other.org", "NO_PROXY": "example.com"]
        #expect(try proxyHost(variables) == "p")
        #expect(try proxyHost(variables, for: "other.org") == nil)
    }

    @Test func anUnusableURLFailsRatherThanGoingDirect() throws {
        #expect(throws: StreamTaskError.self) { try proxyHost(["https_proxy": "socks4://p:1080"]) }
        // ... unless no_proxy exempts the host, when the URL is never read.
        #expect(try proxyHost(["https_proxy": "socks4://p:1080", "no_proxy": "*"]) == nil)
    }

    @Test func theConfigurationReadsGivenVariables() throws {
        let configuration = ProxyConfiguration.environment(["all_proxy": "socks5h://p:9050"])
        let endpoint = try #require(try configuration.endpoint(forHost: "example.com", port: 7))
        #expect(endpoint.kind == .socks5)
        #expect(endpoint.port == 9050)
        #expect(try ProxyConfiguration.direct.endpoint(forHost: "example.com", port: 7) == nil)
        #expect(StreamSession.Configuration().proxy == .environment)
    }

    // MARK: Proxy URLs

    @Test(arguments: [
        ("proxy.example", ProxyKind.httpConnect, "proxy.example", 1080, true),
        ("http://proxy.example:3128", .httpConnect, "proxy.example", 3128, true),
        ("HTTP://Proxy.Example:3128/", .httpConnect, "Proxy.Example", 3128, true),
        ("proxy.example:8080", .httpConnect, "proxy.example", 8080, true),
        ("socks5h://127.0.0.1", .socks5, "127.0.0.1", 1080, true),
        ("socks5://127.0.0.1:9050", .socks5, "127.0.0.1", 9050, false),
        ("SOCKS5H://[::1]:1080", .socks5, "::1", 1080, true),
        ("http://[2001:db8::1]", .httpConnect, "2001:db8::1", 1080, true),
        ("  http://p:1/path?query#fragment  ", .httpConnect, "p", 1, true),
    ])
    func parsesProxyURLs(url: String, kind: ProxyKind, host: String, port: Int, atProxy: Bool) throws {
        let endpoint = try ProxyURL.parse(url, source: nil)
        #expect(endpoint.kind == kind)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.credentials == nil)
        #expect(endpoint.resolvesHostNamesAtProxy == atProxy)
    }

    @Test func percentDecodesCredentials() throws {
        let endpoint = try ProxyURL.parse("http://us%40er:p%3Ass%20w%2Fd@proxy:3128", source: nil)
        #expect(endpoint.credentials == ProxyCredentials(username: "us@er", password: "p:ss w/d"))
        #expect(endpoint.host == "proxy")
        let noPassword = try ProxyURL.parse("socks5://user@proxy", source: nil)
        #expect(noPassword.credentials == ProxyCredentials(username: "user", password: ""))
        // The last "@" ends the credentials: a raw "@" in the password still parses.
        let rawAt = try ProxyURL.parse("http://user:p@ss@proxy:1", source: nil)
        #expect(rawAt.credentials?.password == "p@ss")
        #expect(rawAt.host == "proxy")
    }

    @Test(arguments: [
        ("socks4://proxy", "not supported"),
        ("socks4a://proxy", "not supported"),
        ("ftp://proxy", "unsupported scheme \"ftp\""),
        ("http://", "has no host"),
        ("http://user:pw@:3128", "has no host"),
        ("http://proxy:0", "invalid port"),
        ("http://proxy:65536", "invalid port"),
        ("http://proxy:port", "invalid port"),
        // A "/" in a password must be percent-encoded; the error must not show the password.
        ("http://user:pa/ssword@proxy:3128", "invalid port"),
        ("http://::1:3128", "more than one colon"),
        ("http://[::1", "closing bracket"),
        ("http://us%zzer:pw@proxy", "percent-encoding"),
    ])
    func rejectsUnusableURLs(url: String, reason: String) {
        do {
            _ = try ProxyURL.parse(url, source: "https_proxy")
            Issue.record("parsed \(url)")
        } catch let error as StreamTaskError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(error.message.contains("in https_proxy"))
            #expect(!error.message.contains("ssword"), "a malformed URL's password leaked: \(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func messagesNeverShowThePassword() throws {
        let configuration = try ProxyConfiguration(url: "http://user:secret@proxy:3128")
        #expect(!configuration.description.contains("secret"))
        #expect(!"\(ProxyCredentials(username: "user", password: "secret"))".contains("secret"))
    }

    // MARK: no_proxy

    private func bypasses(_ noProxy: String, _ host: String, port: Int = 443) -> Bool {
        NoProxyList(noProxy).matches(host: host, port: port)
    }

    @Test func asteriskAloneMatchesEverything() {
        #expect(bypasses("*", "example.com"))
        #expect(bypasses(" * ", "10.1.2.3"))
        #expect(!bypasses("", "example.com"))
        // Inside a list, "*" is not a wildcard (curl matches "*" only as the whole value).
        #expect(!bypasses("*.example.com", "www.example.com"))
    }

    @Test func domainSuffixesMatchAtLabelBoundaries() {
        #expect(bypasses("example.com", "example.com"))
        #expect(bypasses("example.com", "www.example.com"))
        #expect(bypasses("example.com", "a.b.example.com"))
        #expect(!bypasses("example.com", "nonexample.com"))
        #expect(!bypasses("example.com", "example.com.org"))
        #expect(!bypasses("www.example.com", "example.com"))
    }

    @Test func aLeadingDotMatchesTheDomainAndItsSubdomains() {
        #expect(bypasses(".example.com", "www.example.com"))
        #expect(bypasses(".example.com", "example.com"))
        #expect(!bypasses(".example.com", "nonexample.com"))
    }

    @Test func namesMatchCaseInsensitivelyIgnoringTrailingDots() {
        #expect(bypasses("Example.COM", "www.example.com"))
        #expect(bypasses("example.com.", "WWW.EXAMPLE.COM"))
        #expect(bypasses("example.com", "www.example.com."))
    }

    @Test func listsAreSeparatedByCommasAndSpaces() {
        let list = "localhost, .internal ,,10.0.0.1 example.org"
        #expect(bypasses(list, "localhost"))
        #expect(bypasses(list, "db.internal"))
        #expect(bypasses(list, "10.0.0.1"))
        #expect(bypasses(list, "example.org"))
        #expect(!bypasses(list, "example.com"))
    }

    @Test func addressesMatchAddressesOnly() {
        #expect(bypasses("127.0.0.1", "127.0.0.1"))
        #expect(!bypasses("127.0.0.1", "127.0.0.2"))
        #expect(!bypasses("127.0.0.1", "localhost"))  // names are not resolved
        #expect(!bypasses("localhost", "127.0.0.1"))
        #expect(bypasses("::1", "::1"))
        #expect(bypasses("::1", "[::1]"))
        #expect(bypasses("[::1]", "0:0::1"))
        #expect(!bypasses("::1", "::2"))
        #expect(!bypasses("::1", "127.0.0.1"))
    }

    @Test func cidrRangesV4() {
        #expect(bypasses("192.168.0.0/16", "192.168.44.5"))
        #expect(!bypasses("192.168.0.0/16", "192.169.0.1"))
        #expect(bypasses("10.0.0.0/8", "10.255.255.255"))
        #expect(bypasses("172.16.0.0/12", "172.31.1.1"))
        #expect(!bypasses("172.16.0.0/12", "172.32.0.1"))
        #expect(bypasses("127.0.0.1/32", "127.0.0.1"))
        #expect(bypasses("0.0.0.0/0", "8.8.8.8"))
        #expect(!bypasses("192.168.0.0/33", "192.168.0.0"))  // invalid: ignored
    }

    @Test func cidrRangesV6() {
        #expect(bypasses("2001:db8::/32", "2001:db8:1::5"))
        #expect(!bypasses("2001:db8::/32", "2001:db9::5"))
        #expect(bypasses("fe80::/10", "febf::1"))
        #expect(!bypasses("fe80::/10", "fec0::1"))
        #expect(!bypasses("2001:db8::/32", "32.1.13.184"))  // another family never matches
    }

    @Test func entriesWithAPortMatchThatPortOnly() {
        #expect(bypasses("example.com:8443", "www.example.com", port: 8443))
        #expect(!bypasses("example.com:8443", "www.example.com", port: 443))
        #expect(bypasses("127.0.0.1:7000", "127.0.0.1", port: 7000))
        #expect(!bypasses("127.0.0.1:7000", "127.0.0.1", port: 7001))
        #expect(bypasses("[::1]:7000", "::1", port: 7000))
        #expect(!bypasses("[::1]:7000", "::1", port: 7001))
        // A bare IPv6 address has no port: its last group is not one.
        #expect(bypasses("2001:db8::7000", "2001:db8::7000", port: 1))
    }
}
