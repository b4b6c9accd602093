//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A network interface that DNS-SD operations run on, or ``any`` for all of them.
///
/// A browse reports on which interface it saw each service; resolving that service asks on the
/// same interface.
public struct DNSSDInterface: Sendable, Hashable, CustomStringConvertible {
    /// The interface's index, as `if_nametoindex` gives it; 0 for ``any``.
    public let index: UInt32

    /// Every interface the daemon uses.
    public static let any = DNSSDInterface(index: 0)

    /// The interface with this index.
    public init(index: UInt32) {
        self.index = index
    }

    /// The interface with this name (for example `"lo"` or `"en0"`), or `nil` if there is none.
    public init?(name: String) {
        let index = if_nametoindex(name)
        guard index != 0 else { return nil }
        self.index = index
    }

    /// The interface's name (for example `"lo"`), or `nil` for ``any`` and for an interface
    /// that no longer exists.
    public var name: String? {
        guard index != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        if index == 0 { return "any interface" }
        return name ?? "interface #\(index)"
    }
}
