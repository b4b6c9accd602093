//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension StreamTransportSecurity {
    /// The policy an `NSAppTransportSecurity` dictionary describes, with Apple's keys and
    /// meaning: pass the dictionary itself, or a whole `Info.plist` dictionary that holds it.
    ///
    /// As on Darwin, `NSAllowsArbitraryLoads` is ignored when `NSAllowsLocalNetworking`,
    /// `NSAllowsArbitraryLoadsForMedia` or `NSAllowsArbitraryLoadsInWebContent` is present, and
    /// keys that concern only web views, media or other systems (`NSPinnedDomains`,
    /// `NSRequiresCertificateTransparency`…) are accepted and have no effect.
    ///
    /// - Throws: ``StreamTaskError/Code/invalidArgument`` naming the key, when a value has the
    ///   wrong type or an unknown TLS version.
    public init(dictionary: [String: Any]) throws {
        var settings = dictionary
        if let nested = dictionary["NSAppTransportSecurity"] {
            guard let inner = nested as? [String: Any] else {
                throw Self.wrongType("NSAppTransportSecurity", "a dictionary")
            }
            settings = inner
        }
        self.init()
        allowsLocalNetworking = try Self.bool(settings, "NSAllowsLocalNetworking") ?? false
        let overriding = [
            "NSAllowsLocalNetworking", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
        ]
        let ignoresArbitraryLoads = overriding.contains { settings[$0] != nil }
        allowsArbitraryLoads =
            ignoresArbitraryLoads ? false : try Self.bool(settings, "NSAllowsArbitraryLoads") ?? false
        guard let domains = settings["NSExceptionDomains"] else { return }
        guard let entries = domains as? [String: Any] else {
            throw Self.wrongType("NSExceptionDomains", "a dictionary")
        }
        // In code-point order, so that of keys differing only in case the lowercase one is read
        // last and wins, in every process.
        for (domain, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let entry = value as? [String: Any] else {
                throw Self.wrongType("NSExceptionDomains[\"\(domain)\"]", "a dictionary")
            }
            exceptionDomains[domain.lowercased()] = try Self.exception(entry, domain: domain)
        }
    }

    /// The policy in the main bundle's `Info.plist` (on Linux, an `Info.plist` beside the
    /// executable), read once: what a session configuration starts with, so that a Darwin app's
    /// settings carry over with the file. ATS's defaults when there is none, or when its
    /// `NSAppTransportSecurity` entry cannot be read (the stricter choice: loading it with
    /// ``init(dictionary:)`` says what is wrong).
    public static var mainBundle: StreamTransportSecurity { mainBundlePolicy }

    private static let mainBundlePolicy: StreamTransportSecurity = {
        guard let settings = Bundle.main.object(forInfoDictionaryKey: "NSAppTransportSecurity") else {
            return StreamTransportSecurity()
        }
        return (try? StreamTransportSecurity(dictionary: ["NSAppTransportSecurity": settings]))
            ?? StreamTransportSecurity()
    }()

    /// The policy in an `Info.plist` or a file holding just the `NSAppTransportSecurity`
    /// dictionary: an XML or binary property list, or the same dictionary as JSON.
    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        let object: Any
        do {
            let first = data.first { !Character(UnicodeScalar($0)).isWhitespace }
            object =
                first == UInt8(ascii: "{")
                ? try JSONSerialization.jsonObject(with: data)
                : try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw StreamTaskError(
                .invalidArgument, "\(url.path) is neither a property list nor JSON: \(error)", underlying: error)
        }
        guard let dictionary = object as? [String: Any] else {
            throw StreamTaskError(.invalidArgument, "\(url.path) does not hold a dictionary")
        }
        try self.init(dictionary: dictionary)
    }

    private static func exception(_ entry: [String: Any], domain: String) throws -> DomainException {
        let path = "NSExceptionDomains[\"\(domain)\"]."
        var exception = DomainException()
        exception.includesSubdomains = try bool(entry, "NSIncludesSubdomains", path) ?? false
        exception.allowsInsecureHTTPLoads = try bool(entry, "NSExceptionAllowsInsecureHTTPLoads", path) ?? false
        exception.requiresForwardSecrecy = try bool(entry, "NSExceptionRequiresForwardSecrecy", path) ?? true
        if let value = entry["NSExceptionMinimumTLSVersion"] {
            let versions: [String: StreamTLSConfiguration.Version] = [
                "TLSv1.0": .tls1_0, "TLSv1.1": .tls1_1, "TLSv1.2": .tls1_2, "TLSv1.3": .tls1_3,
            ]
            guard let text = value as? String, let version = versions[text] else {
                throw wrongType(path + "NSExceptionMinimumTLSVersion", "one of TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3")
            }
            exception.minimumTLSVersion = version
        }
        return exception
    }

    /// A Boolean key: a property list's `<true/>`/`<false/>` or JSON's `true`/`false`.
    private static func bool(_ settings: [String: Any], _ key: String, _ path: String = "") throws -> Bool? {
        guard let value = settings[key] else { return nil }
        if let flag = value as? Bool { return flag }
        throw wrongType(path + key, "a Boolean")
    }

    private static func wrongType(_ key: String, _ expected: String) -> StreamTaskError {
        StreamTaskError(.invalidArgument, "App Transport Security setting \(key) must be \(expected)")
    }
}
