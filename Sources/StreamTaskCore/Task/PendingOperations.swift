//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// The state machine's queue of operations in the order they were issued, addressed by offset
/// from the head.
///
/// Operations leave mostly from the front (each lane completes in order), which a ring buffer
/// does at once where an array shifts everything behind; and it counts the operations that
/// claim input, so that the machine can tell without a scan whether any is queued. A writer
/// that keeps thousands of small writes queued behind a full channel costs each new
/// operation the same as an empty queue does.
struct PendingOperations {
    typealias Element = StreamTaskStateMachine.Pending

    /// Two slots to start with (a read and a write), where `CircularBuffer()` takes sixteen: a
    /// task has its queues from the start, and ten thousand idle connections paid for the
    /// empty slots (3 KiB a connection, with `writesInFlight` and the driver's deferred lists).
    private var storage = CircularBuffer<Element>(initialCapacity: 2)
    /// How many queued operations claim input (a read, `closeRead` or a barrier).
    private(set) var claimingInputCount = 0

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    private func position(_ offset: Int) -> CircularBuffer<Element>.Index {
        storage.index(storage.startIndex, offsetBy: offset)
    }

    /// The operation `offset` places from the head. Changing it must not change whether it
    /// claims input.
    subscript(offset: Int) -> Element {
        get { storage[position(offset)] }
        set {
            precondition(newValue.claimsInput == storage[position(offset)].claimsInput)
            storage[position(offset)] = newValue
        }
    }

    mutating func append(_ element: Element) {
        if element.claimsInput { claimingInputCount += 1 }
        storage.append(element)
    }

    /// Removes the operation `offset` places from the head: at once at either end.
    @discardableResult
    mutating func remove(at offset: Int) -> Element {
        let element = offset == 0 ? storage.removeFirst() : storage.remove(at: position(offset))
        if element.claimsInput { claimingInputCount -= 1 }
        return element
    }

    /// Removes and returns every operation after the head.
    mutating func removeAllButFirst() -> [Element] {
        guard let head = storage.first else { return [] }
        let removed = Array(storage.dropFirst())
        storage.removeAll(keepingCapacity: true)
        claimingInputCount = 0
        append(head)
        return removed
    }

    /// Removes and returns every operation that `shouldBeRemoved` picks, in queue order.
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) -> [Element] {
        var kept = CircularBuffer<Element>(initialCapacity: storage.count)
        var removed: [Element] = []
        for element in storage {
            if shouldBeRemoved(element) {
                removed.append(element)
                if element.claimsInput { claimingInputCount -= 1 }
            } else {
                kept.append(element)
            }
        }
        storage = kept
        return removed
    }

    /// The offset of the first operation that `predicate` picks.
    func firstOffset(where predicate: (Element) -> Bool) -> Int? {
        storage.firstIndex(where: predicate).map { storage.distance(from: storage.startIndex, to: $0) }
    }

    /// The operations in queue order.
    var elements: [Element] { Array(storage) }
}
