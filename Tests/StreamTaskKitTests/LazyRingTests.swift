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

/// The queues every task keeps (its inbox, its deferred actions) cost nothing while empty,
/// keep their order, and give back what a burst grew them to.
struct LazyRingTests {
    @Test func anEmptyRingHoldsNoBuffer() {
        var ring = LazyRing<Int>()
        #expect(ring.isEmpty)
        #expect(ring.allocatedCapacity == 0)
        #expect(ring.popFirst() == nil)
        #expect(ring.removeAll().isEmpty)
    }

    @Test func elementsComeOutInOrder() {
        var ring = LazyRing<Int>()
        for value in 0..<5 { ring.append(value) }
        #expect(ring.popFirst() == 0)
        ring.append(5)
        #expect(ring.removeAll() == [1, 2, 3, 4, 5])
        #expect(ring.isEmpty)
        #expect(ring.allocatedCapacity == 0)
    }

    @Test func aSmallBufferIsKeptAndALargeOneGivenBackOnceEmpty() {
        var ring = LazyRing<Int>()
        ring.append(1)
        _ = ring.popFirst()
        #expect(ring.allocatedCapacity > 0, "a steady trickle does not allocate each time")
        for value in 0..<1000 { ring.append(value) }
        #expect(ring.allocatedCapacity >= 1000)
        var taken: [Int] = []
        while let value = ring.popFirst() { taken.append(value) }
        #expect(taken == Array(0..<1000))
        #expect(ring.allocatedCapacity == 0, "a burst's buffer is not kept for the rest of the connection")
    }
}
