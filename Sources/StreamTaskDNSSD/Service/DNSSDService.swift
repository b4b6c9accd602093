//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One instance of a DNS-SD service: a name, a type and a domain, as a browse finds it or as
/// you know it, like `NetService(domain:type:name:)`.
///
/// A plain value: it holds no connection to the daemon. ``resolve(timeout:)`` finds its host,
/// port, TXT record and addresses, and `StreamSession.streamTask(with:)` connects to it.
public struct DNSSDService: Sendable, Hashable, CustomStringConvertible {
    /// The instance name, for example `"Office Printer"`; any UTF-8 text up to 63 bytes.
    public let name: String
    /// The service type, for example `"_ipp._tcp"` (without a trailing dot).
    public let type: String
    /// The domain, for example `"local."` (with a trailing dot).
    public let domain: String
    /// The interface the service was seen on; ``DNSSDInterface/any`` when not known.
    public let interface: DNSSDInterface

    /// A service of `type` named `name` in `domain`.
    ///
    /// - Parameters:
    ///   - name: The instance name.
    ///   - type: The service type, `_name._tcp` or `_name._udp`; a trailing dot is dropped.
    ///   - domain: The domain; `"local."` (multicast DNS) by default. A trailing dot is added.
    ///   - interface: Where to look for it; any interface by default.
    public init(name: String, type: String, domain: String = "local.", interface: DNSSDInterface = .any) {
        self.name = name
        self.type = DNSSDService.normalizedType(type)
        self.domain = DNSSDService.normalizedDomain(domain)
        self.interface = interface
    }

    public var description: String {
        "\"\(name)\" \(type) in \(domain)" + (interface == .any ? "" : " on \(interface)")
    }

    static func normalizedType(_ type: String) -> String {
        type.hasSuffix(".") ? String(type.dropLast()) : type
    }

    static func normalizedDomain(_ domain: String) -> String {
        if domain.isEmpty { return "local." }
        return domain.hasSuffix(".") ? domain : domain + "."
    }

    /// Checks that `type` looks like `_name._tcp` or `_name._udp`, which the daemons require.
    static func validate(type: String) throws(DNSSDError) {
        let labels = normalizedType(type).split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count == 2, labels[0].count >= 2, labels[0].first == "_",
            labels[1] == "_tcp" || labels[1] == "_udp"
        else {
            throw DNSSDError.invalidArgument(
                "\"\(type)\" is not a service type: it must look like _name._tcp or _name._udp, for example _http._tcp"
            )
        }
        guard labels[0].utf8.count <= 16 else {
            throw DNSSDError.invalidArgument(
                "the service type \"\(type)\" is too long: its name may have at most 15 characters after the underscore"
            )
        }
    }

    /// Checks that `name` fits in one DNS label.
    static func validate(name: String) throws(DNSSDError) {
        guard !name.isEmpty, name.utf8.count <= 63 else {
            throw DNSSDError.invalidArgument(
                "the service name \"\(name)\" must be 1 to 63 bytes of UTF-8; it is \(name.utf8.count)"
            )
        }
    }
}
