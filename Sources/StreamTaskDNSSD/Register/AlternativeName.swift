//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The names a registration tries after a conflict: `Name (2)`, `Name (3)`, …, as Apple's
/// daemon picks them.
///
/// Apple's daemon renames a service by itself. Avahi's compatibility layer does so only when the
/// conflict comes from another host; a name taken on the same daemon (by another program, or by
/// this one) fails the registration with `kDNSServiceErr_NameConflict`, so the registration
/// picks the next name itself.
enum AlternativeName {
    /// The name to try after `name` conflicted: the number in a trailing ` (n)` goes up by one,
    /// or ` (2)` is added; the base is shortened (at a character boundary) so the result stays
    /// within a DNS label's 63 bytes.
    static func after(_ name: String) -> String {
        var base = name
        var number = 2
        if name.hasSuffix(")"), let open = name.lastIndex(of: "("), open > name.startIndex,
            name[name.index(before: open)] == " ",
            let current = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]), current >= 2
        {
            base = String(name[..<name.index(before: open)])
            number = current + 1
        }
        let suffix = " (\(number))"
        while base.utf8.count + suffix.utf8.count > 63, !base.isEmpty {
            base.removeLast()
        }
        return base + suffix
    }
}
