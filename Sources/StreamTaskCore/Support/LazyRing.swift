//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// A first-in, first-out queue that allocates nothing until its first element, and gives
/// back a large buffer once it is empty again.
///
/// Every task has a few of these (its inbox, its deferred action lists). Most stay empty for
/// the whole life of an idle connection, and a ring allocated up front for each would be a
/// good part of what an idle connection costs; one that a burst grew to thousands of
/// elements would otherwise keep them all for the rest of the connection. A small buffer is
/// kept, so that a steady stream of operations does not allocate one each time.
struct LazyRing<Element> {
    private var storage: CircularBuffer<Element>?
    /// The largest buffer kept once empty.
    private static var keptCapacity: Int { 16 }

    init() {}

    var isEmpty: Bool { storage?.isEmpty ?? true }

    /// How many elements the buffer holds now without growing: 0 before the first element and
    /// after a large buffer was given back.
    var allocatedCapacity: Int { storage?.capacity ?? 0 }

    mutating func append(_ element: Element) {
        if storage == nil { storage = CircularBuffer(initialCapacity: 1) }
        storage!.append(element)
    }

    /// The oldest element, removed; `nil` when there is none.
    mutating func popFirst() -> Element? {
        guard let element = storage?.popFirst() else { return nil }
        if storage!.isEmpty && storage!.capacity > Self.keptCapacity { storage = nil }
        return element
    }

    /// Every element, oldest first, leaving the queue empty.
    mutating func removeAll() -> [Element] {
        defer { storage = nil }
        return storage.map(Array.init) ?? []
    }
}
