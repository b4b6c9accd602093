//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `StreamTransportSecurity(dictionary:)` on `NSAppTransportSecurity` dictionaries built from the
// input, and `requirements(forHost:)` on hosts made from their keys, checked against what
// Docs.docc/TransportSecurity.md and the doc comments say they mean:
//
// - loading throws exactly when a value has the wrong type or names an unknown TLS version,
//   and then a `StreamTaskError` `.invalidArgument` naming one of the wrong keys; otherwise the
//   policy holds the values given (Apple's defaults for the rest), with `allowsArbitraryLoads`
//   false whenever NSAllowsLocalNetworking, NSAllowsArbitraryLoadsForMedia or
//   NSAllowsArbitraryLoadsInWebContent is present;
// - every key matches itself, in any case; for any host, an exact entry comes first, then the
//   narrowest range holding an address, then the parent domain's entry when it includes
//   subdomains (one label only, a name only, never from an address key); the requirements
//   carry the values of the entry that matched; without one, unqualified and `.local` names get
//   none, nor addresses under NSAllowsLocalNetworking, nor anything under
//   NSAllowsArbitraryLoads, and everything else gets ATS's defaults.
//
// Names are read as DNS means them: a label ends at the byte ".", whatever follows it, and an
// IPv6 zone starts at the byte "%".
//
// Input: a count n, then n steering bytes (the shape of the dictionary: which keys, holding
// values of which types), then lines of text: the words its domain keys and hosts are made of.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

private typealias Exception = StreamTransportSecurity.DomainException

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATSExceptions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let count = Int(input.byte())
    var steering: [UInt8] = []
    for _ in 0..<count { steering.append(input.byte()) }
    let words = input.rest.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(8)
        .map { String(decoding: $0, as: UTF8.self) }
    var builder = SettingsBuilder(steering: steering[...], words: words)
    let top = builder.top()
    let expected = Expectation(top)

    var loaded: StreamTransportSecurity? = nil
    do {
        let policy = try StreamTransportSecurity(dictionary: top.mapValues(\.object))
        require(expected.wrong.isEmpty, "loaded, although \(expected.wrong) have the wrong type")
        expected.compare(policy)
        loaded = policy
    } catch let error as StreamTaskError {
        require(!expected.wrong.isEmpty, "refused settings with no wrong value: \(error.message)")
        require(error.code == .invalidArgument, "refused with \(error.code), not invalidArgument: \(error.message)")
        let named = expected.wrong.filter { error.message.contains("setting \($0) must be ") }
        require(!named.isEmpty, "the refusal names none of the wrong keys \(expected.wrong): \(error.message)")
        if named.allSatisfy({ $0.hasSuffix("NSExceptionMinimumTLSVersion") }) {
            require(
                error.message.contains("TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3"),
                "the refusal of a TLS version lists none: \(error.message)")
        }
    } catch {
        require(false, "threw \(type(of: error)), not a StreamTaskError: \(error)")
    }

    if let loaded {
        checkHosts(Reference(loaded), words: words, steering: &builder.steering)
    }
    // The same entries set in code, under their keys as written (mixed case too), the first of
    // those that differ only in case.
    if loaded == nil || builder.steering.byte() & 1 != 0 {
        var domains: [String: Exception] = [:]
        var seen: Set<String> = []
        for (key, exception) in expected.written where seen.insert(key.lowercased()).inserted {
            domains[key] = exception
        }
        let direct = StreamTransportSecurity(
            allowsArbitraryLoads: expected.allowsArbitraryLoads, allowsLocalNetworking: expected.allowsLocalNetworking,
            exceptionDomains: domains)
        checkHosts(Reference(direct), words: words, steering: &builder.steering)
    }
    return 0
}

// MARK: The settings

/// A property-list value built by the harness, so that what loading it gives is known without
/// the casts the library makes.
private indirect enum Value {
    /// A property list's `<true/>` or `<false/>`.
    case bool(Bool)
    /// JSON's `true` or `false`, as JSONSerialization gives them: an NSNumber.
    case number(Bool)
    case string(String)
    case int(Int)
    case dictionary([String: Value])
    case array([Value])

    var object: Any {
        switch self {
        case .bool(let flag): flag
        case .number(let flag): NSNumber(value: flag)
        case .string(let text): text
        case .int(let number): number
        case .dictionary(let entries): entries.mapValues(\.object)
        case .array(let items): items.map(\.object)
        }
    }

    /// What a Boolean key reads: `nil` for a value of another type.
    var boolean: Bool? {
        switch self {
        case .bool(let flag), .number(let flag): flag
        default: nil
        }
    }

    var dictionary: [String: Value]? {
        if case .dictionary(let entries) = self { entries } else { nil }
    }
}

private let overridingKeys = [
    "NSAllowsLocalNetworking", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
]
private let versions: [String: StreamTLSConfiguration.Version] = [
    "TLSv1.0": .tls1_0, "TLSv1.1": .tls1_1, "TLSv1.2": .tls1_2, "TLSv1.3": .tls1_3,
]

/// The steering bytes, read from the front; 0 once they run out.
private struct Steering {
    var bytes: ArraySlice<UInt8>

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
}

/// Builds a settings dictionary with Apple's keys (and others), its values chosen by steering.
private struct SettingsBuilder {
    var steering: Steering
    let words: [String]

    init(steering: ArraySlice<UInt8>, words: [String]) {
        self.steering = Steering(bytes: steering)
        self.words = words
    }

    mutating func word() -> String {
        let choice = Int(steering.byte())
        return words.isEmpty ? "" : words[choice % words.count]
    }

    /// A value of any type.
    mutating func any(depth: Int = 0) -> Value {
        let choice = steering.byte()
        switch choice % 8 {
        case 0, 1: return .bool(choice & 8 != 0)
        case 2: return .number(choice & 8 != 0)
        case 3: return .string(choice & 8 != 0 ? word() : ["YES", "NO", "true", "1", ""][Int(choice >> 4) % 5])
        case 4: return .int(Int(choice >> 3) - 16)
        case 5:
            guard depth < 2 else { return .dictionary([:]) }
            let key = word()
            return .dictionary([key: any(depth: depth + 1)])
        case 6: return .array(depth < 2 ? [any(depth: depth + 1)] : [])
        default: return .string(["TLSv1.2", "TLSv1.0", "NSIncludesSubdomains"][Int(choice >> 3) % 3])
        }
    }

    /// A Boolean key's value: mostly a Boolean, sometimes anything.
    mutating func boolean() -> Value {
        let choice = steering.byte()
        switch choice % 8 {
        case 0...3: return .bool(choice & 8 != 0)
        case 4, 5: return .number(choice & 8 != 0)
        default: return any()
        }
    }

    /// NSExceptionMinimumTLSVersion's value: mostly a known version.
    mutating func version() -> Value {
        let choice = steering.byte()
        switch choice % 8 {
        case 0...4: return .string(["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"][Int(choice >> 3) % 4])
        case 5: return .string(["TLSv1.4", "tlsv1.2", "TLSv1.2 ", "1.2", "TLSv1", ""][Int(choice >> 3) % 6])
        case 6: return .string(word())
        default: return any()
        }
    }

    /// The dictionary passed to `init(dictionary:)`: the settings bare, inside an Info.plist's
    /// NSAppTransportSecurity, or that key holding something else.
    mutating func top() -> [String: Value] {
        let shape = steering.byte()
        var settings: [String: Value] = [:]
        for key in ["NSAllowsArbitraryLoads"] + overridingKeys where steering.byte() % 4 != 0 {
            settings[key] = boolean()
        }
        switch steering.byte() % 4 {
        case 0: break
        case 1: settings["NSExceptionDomains"] = any()
        default: settings["NSExceptionDomains"] = .dictionary(exceptionDomains())
        }
        if shape & 4 != 0 {
            // Keys for other systems, accepted and without effect.
            settings["NSPinnedDomains"] = .dictionary([word(): .dictionary(["NSIncludesSubdomains": .bool(true)])])
            settings["NSRequiresCertificateTransparency"] = .bool(true)
        }
        if shape & 8 != 0 {
            let key = word()
            settings[key] = any()
        }
        var top: [String: Value] = shape & 16 != 0 ? ["CFBundleIdentifier": .string("com.example.app")] : [:]
        switch shape % 4 {
        case 0, 1: top.merge(settings) { _, setting in setting }
        case 2: top["NSAppTransportSecurity"] = .dictionary(settings)
        default: top["NSAppTransportSecurity"] = shape & 32 != 0 ? .array([.dictionary(settings)]) : any()
        }
        return top
    }

    /// An entry for each word: the word as a name, address or range key (or a name above or
    /// below another word), with some of Apple's keys and values of their types or others.
    mutating func exceptionDomains() -> [String: Value] {
        var entries: [String: Value] = [:]
        for (index, name) in words.enumerated() {
            let next = words[(index + 1) % words.count]
            let form = steering.byte()
            let key: String
            switch form % 8 {
            case 0, 1, 2: key = name
            case 3: key = asciiUppercased(name)
            case 4: key = name + "/" + String(Int(steering.byte()) % 140)
            case 5: key = name + "/" + next
            case 6: key = next + "." + name
            default: key = name + "." + next
            }
            let shape = steering.byte()
            if shape >= 0xE0 {
                entries[key] = any()
                continue
            }
            var entry: [String: Value] = [:]
            if shape & 1 != 0 { entry["NSIncludesSubdomains"] = boolean() }
            if shape & 2 != 0 { entry["NSExceptionAllowsInsecureHTTPLoads"] = boolean() }
            if shape & 4 != 0 { entry["NSExceptionRequiresForwardSecrecy"] = boolean() }
            if shape & 8 != 0 { entry["NSExceptionMinimumTLSVersion"] = version() }
            if shape & 16 != 0 {
                let others = [
                    "NSRequiresCertificateTransparency", "NSThirdPartyExceptionAllowsInsecureHTTPLoads",
                    "NSThirdPartyExceptionMinimumTLSVersion", "NSThirdPartyExceptionRequiresForwardSecrecy",
                ]
                let choice = Int(steering.byte())
                let other = choice < 4 * others.count ? others[choice % others.count] : word()
                entry[other] = any()
            }
            entries[key] = .dictionary(entry)
        }
        return entries
    }
}

/// What loading a dictionary should give, by the documented rules: the keys whose values have
/// the wrong type (each as the refusal names it), or the policy.
private struct Expectation {
    var wrong: [String] = []
    var allowsArbitraryLoads = false
    var allowsLocalNetworking = false
    /// The overriding key present, if any: NSAllowsArbitraryLoads is then ignored.
    var overriding: String? = nil
    /// Each entry under its lowercased key; keys that differ only in case give several, and the
    /// policy keeps one of them.
    var domains: [String: [Exception]] = [:]
    /// The entries under their keys as written, in order.
    var written: [(String, Exception)] = []

    init(_ top: [String: Value]) {
        var settings = top
        if let nested = top["NSAppTransportSecurity"] {
            guard let inner = nested.dictionary else {
                wrong = ["NSAppTransportSecurity"]
                return
            }
            settings = inner
        }
        allowsLocalNetworking = boolean(settings, "NSAllowsLocalNetworking") ?? false
        overriding = overridingKeys.first { settings[$0] != nil }
        if overriding == nil {
            allowsArbitraryLoads = boolean(settings, "NSAllowsArbitraryLoads") ?? false
        }
        guard let domains = settings["NSExceptionDomains"] else { return }
        guard let entries = domains.dictionary else {
            wrong.append("NSExceptionDomains")
            return
        }
        for (domain, value) in entries.sorted(by: { $0.key < $1.key }) {
            let path = "NSExceptionDomains[\"\(domain)\"]"
            guard let entry = value.dictionary else {
                wrong.append(path)
                continue
            }
            var exception = Exception()
            exception.includesSubdomains = boolean(entry, "NSIncludesSubdomains", path + ".") ?? false
            exception.allowsInsecureHTTPLoads =
                boolean(entry, "NSExceptionAllowsInsecureHTTPLoads", path + ".") ?? false
            exception.requiresForwardSecrecy = boolean(entry, "NSExceptionRequiresForwardSecrecy", path + ".") ?? true
            if let given = entry["NSExceptionMinimumTLSVersion"] {
                if case .string(let text) = given, let version = versions[text] {
                    exception.minimumTLSVersion = version
                } else {
                    wrong.append(path + ".NSExceptionMinimumTLSVersion")
                }
            }
            self.domains[domain.lowercased(), default: []].append(exception)
            written.append((domain, exception))
        }
    }

    private mutating func boolean(_ settings: [String: Value], _ key: String, _ path: String = "") -> Bool? {
        guard let value = settings[key] else { return nil }
        if value.boolean == nil { wrong.append(path + key) }
        return value.boolean
    }

    func compare(_ policy: StreamTransportSecurity) {
        require(
            policy.allowsLocalNetworking == allowsLocalNetworking,
            "allowsLocalNetworking is \(policy.allowsLocalNetworking), the settings say \(allowsLocalNetworking)")
        if let overriding {
            require(!policy.allowsArbitraryLoads, "NSAllowsArbitraryLoads is not ignored beside \(overriding)")
        }
        require(
            policy.allowsArbitraryLoads == allowsArbitraryLoads,
            "allowsArbitraryLoads is \(policy.allowsArbitraryLoads), the settings say \(allowsArbitraryLoads)")
        require(
            Set(policy.exceptionDomains.keys) == Set(domains.keys),
            "the entries are \(policy.exceptionDomains.keys.sorted()), the settings name \(domains.keys.sorted())")
        for (key, exception) in policy.exceptionDomains {
            require(
                domains[key]?.contains(exception) == true,
                "the entry \(key.debugDescription) holds \(exception), the settings say \(domains[key] ?? [])")
        }
    }
}

// MARK: The hosts

/// What `requirements(forHost:)` must give for a policy, by the documented rules.
private struct Reference {
    let policy: StreamTransportSecurity
    /// The entries by lowercased key (the harness gives no two keys that lowercase alike).
    let entries: [String: Exception]
    /// The keys that are addresses or CIDR ranges.
    let ranges: [(key: String, network: [UInt8], prefixLength: Int)]

    init(_ policy: StreamTransportSecurity) {
        self.policy = policy
        var entries: [String: Exception] = [:]
        for (key, exception) in policy.exceptionDomains { entries[key.lowercased()] = exception }
        self.entries = entries
        ranges = entries.keys.sorted().compactMap { key in
            addressRange(key).map { (key, $0.network, $0.prefixLength) }
        }
    }

    enum Outcome {
        /// ATS does not apply, for this reason.
        case none(String)
        case defaults
        /// This entry (one of these, for ranges alike) matches, for this reason.
        case entry(Set<String>, String)
    }

    /// The host as ATS compares it, and what the rules give for it; `nil` for text in brackets
    /// that is no IPv6 address, of which the rules say nothing.
    func outcome(_ host: String) -> (text: String, outcome: Outcome)? {
        var text = host.lowercased()
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "[") || bytes.last == UInt8(ascii: "]") {
            guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else {
                return nil
            }
            text = String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
            guard addressBytes(text)?.count == 16 else { return nil }
        }
        let address = addressBytes(text)
        if entries[text] != nil { return (text, .entry([text], "the entry for the host itself")) }
        if let address {
            let holding = ranges.filter { contains($0.network, $0.prefixLength, address) }
            if let narrowest = holding.map(\.prefixLength).max() {
                let keys = Set(holding.filter { $0.prefixLength == narrowest }.map(\.key))
                return (text, .entry(keys, "the narrowest range holding the address"))
            }
        } else if let dot = Array(text.utf8).firstIndex(of: UInt8(ascii: ".")) {
            let parent = String(decoding: Array(text.utf8)[(dot + 1)...], as: UTF8.self)
            if let entry = entries[parent], entry.includesSubdomains, addressRange(parent) == nil {
                return (text, .entry([parent], "its parent's entry, which includes subdomains"))
            }
        }
        if address == nil, isUnqualifiedOrLocal(text) { return (text, .none("an unqualified or .local name")) }
        if address != nil, policy.allowsLocalNetworking { return (text, .none("an address, with local networking")) }
        if policy.allowsArbitraryLoads { return (text, .none("no entry, with arbitrary loads")) }
        return (text, .defaults)
    }

    func check(_ host: String) {
        let rules = policy.requirements(forHost: host)
        guard let expected = outcome(host) else { return }
        let (text, outcome) = expected
        let got = rules.map { "\($0.exceptionDomain.map { "the entry \($0.debugDescription)" } ?? "the defaults")" }
        let context =
            "\(host.debugDescription) (keys \(entries.keys.sorted()), local \(policy.allowsLocalNetworking), arbitrary \(policy.allowsArbitraryLoads))"
        switch outcome {
        case .none(let why):
            require(rules == nil, "\(context): \(why) needs no requirements, got \(got ?? "")")
        case .defaults:
            guard let rules else { return require(false, "\(context): ATS applies, but it got no requirements") }
            require(rules.exceptionDomain == nil, "\(context): no entry matches, got \(got ?? "")")
            require(
                rules.minimumVersion == .tls1_2 && rules.requiresForwardSecrecy && !rules.allowsInsecureHTTPLoads,
                "\(context): the defaults are not ATS's: \(rules)")
            require(rules.host == text, "\(context): the requirements are for \(rules.host.debugDescription)")
        case .entry(let keys, let why):
            guard let rules, let key = rules.exceptionDomain, keys.contains(key), let exception = entries[key] else {
                return require(false, "\(context): \(why) (\(keys.sorted())) must match, got \(got ?? "none")")
            }
            require(
                rules.minimumVersion == exception.minimumTLSVersion
                    && rules.requiresForwardSecrecy == exception.requiresForwardSecrecy
                    && rules.allowsInsecureHTTPLoads == exception.allowsInsecureHTTPLoads,
                "\(context): the requirements \(rules) are not the entry's \(exception)")
            require(rules.host == text, "\(context): the requirements are for \(rules.host.debugDescription)")
        }
    }
}

/// Asks for hosts made from every key and word: the key in any case, in brackets, one and two
/// labels below, addresses at both ends of a range and just outside it, and the words as
/// they are, below `www.` and above `.local`.
private func checkHosts(_ reference: Reference, words: [String], steering: inout Steering) {
    let policy = reference.policy
    for key in policy.exceptionDomains.keys where !(key.hasPrefix("[") && key.hasSuffix("]")) {
        // Every key matches itself, whatever its case.
        let rules = policy.requirements(forHost: key)
        require(
            rules?.exceptionDomain == key.lowercased(),
            "the key \(key.debugDescription) does not match itself: \(rules?.exceptionDomain?.debugDescription ?? "no entry")"
        )
    }
    var hosts = ["localhost", "printer.local", "www.example.com", "10.0.0.1", "[::1]", "fe80::1%eth0"]
    for word in words {
        hosts += [word, asciiUppercased(word), "www." + word, word + ".local", "[" + word + "]"]
    }
    for key in policy.exceptionDomains.keys.sorted() {
        let lower = key.lowercased()
        hosts += [key, asciiUppercased(lower), "www." + lower, "WWW." + asciiUppercased(lower), "a.b." + lower]
        if let first = words.first { hosts.append(first + "." + lower) }
        if addressBytes(lower)?.count == 16 { hosts.append("[" + asciiUppercased(lower) + "]") }
        guard let range = addressRange(lower) else { continue }
        let (network, length) = range
        let pattern = steering.byte()
        var addresses = [0x00, 0xff, pattern].map { fill in hostBits(network, length, fill) }
        if length > 0 {
            var outside = network
            outside[(length - 1) / 8] ^= 0x80 >> UInt8((length - 1) % 8)
            addresses.append(outside)
        }
        for address in addresses {
            guard let text = addressText(address) else { continue }
            hosts += [text, address.count == 16 ? "[" + text + "]" : "::ffff:" + text]
        }
    }
    for host in hosts { reference.check(host) }
}

// MARK: Addresses and names, as DNS and inet_pton read them

/// The bytes of an IPv4 or IPv6 address; an IPv6 zone (`%eth0`) is left out.
private func addressBytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    let utf8 = Array(text.utf8)
    let unzoned = String(decoding: utf8[..<(utf8.firstIndex(of: UInt8(ascii: "%")) ?? utf8.count)], as: UTF8.self)
    var v6 = in6_addr()
    if inet_pton(AF_INET6, unzoned, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}

/// An address, or a CIDR range (`10.0.0.0/8`; the length as `Int` reads it).
private func addressRange(_ key: String) -> (network: [UInt8], prefixLength: Int)? {
    let utf8 = Array(key.utf8)
    let slash = utf8.firstIndex(of: UInt8(ascii: "/"))
    guard let network = addressBytes(String(decoding: utf8[..<(slash ?? utf8.count)], as: UTF8.self)) else {
        return nil
    }
    guard let slash else { return (network, network.count * 8) }
    var digits = utf8[(slash + 1)...]
    if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { digits = digits.dropFirst() }
    guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
        return nil
    }
    var length = 0
    for digit in digits {
        length = length * 10 + Int(digit - UInt8(ascii: "0"))
        if length > network.count * 8 { return nil }
    }
    return (network, length)
}

private func contains(_ network: [UInt8], _ prefixLength: Int, _ address: [UInt8]) -> Bool {
    address.count == network.count && hostBits(network, prefixLength, 0) == hostBits(address, prefixLength, 0)
}

/// `address` with the bits after the first `prefixLength` taken from `fill`.
private func hostBits(_ address: [UInt8], _ prefixLength: Int, _ fill: UInt8) -> [UInt8] {
    address.enumerated().map { index, byte in
        let kept = max(0, min(8, prefixLength - index * 8))
        let mask = UInt8(truncatingIfNeeded: 0xff << (8 - kept))
        return byte & mask | fill & ~mask
    }
}

private func addressText(_ bytes: [UInt8]) -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let ok = bytes.withUnsafeBytes { raw in
        inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
    }
    return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
}

/// A name without a dot (a trailing one aside), or ending in `.local`.
private func isUnqualifiedOrLocal(_ name: String) -> Bool {
    var bytes = Array(name.utf8)
    if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
    return !bytes.contains(UInt8(ascii: ".")) || bytes.suffix(6).elementsEqual(".local".utf8)
}

/// `text` with a to z in upper case, as DNS compares names (and nothing else changed).
private func asciiUppercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (0x61...0x7a).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
}
