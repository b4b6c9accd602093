//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import Testing

@testable import StreamTaskCore

/// A step's actions keep their order however many there are: the first two are held inline,
/// the rest in an array, and every way of putting them together reads them back in order.
struct StreamTaskStateMachineActionsTests {
    typealias Actions = StreamTaskStateMachine.Actions

    /// The ids of the `succeed` actions, in order (every action here is one).
    private func ids(_ actions: Actions) -> [UInt64] {
        actions.compactMap { action in
            if case .succeed(let id, _) = action { return id.rawValue }
            return nil
        }
    }

    private func succeeding(_ ids: ClosedRange<UInt64>) -> Actions {
        Actions(ids.map { .succeed(OperationID(rawValue: $0), to: nil) })
    }

    @Test(arguments: [0, 1, 2, 3, 7])
    func appendingKeepsOrderAndCount(count: Int) {
        var actions = Actions()
        for id in 0..<UInt64(count) { actions.append(.succeed(OperationID(rawValue: id), to: nil)) }
        #expect(actions.count == count)
        #expect(actions.isEmpty == (count == 0))
        #expect(ids(actions) == Array(0..<UInt64(count)))
        #expect(actions.indices == 0..<count)
    }

    @Test func joiningKeepsOrder() {
        var actions = succeeding(1...3)
        actions += succeeding(4...5)
        #expect(ids(actions) == [1, 2, 3, 4, 5])
        #expect(ids(succeeding(1...1) + succeeding(2...4)) == [1, 2, 3, 4])
        #expect(ids([.succeed(OperationID(rawValue: 9), to: nil), .flush]) == [9])
        #expect(([.flush, .close] as Actions).count == 2)
    }

    @Test func lastAndReversedReachTheOverflow() {
        let actions = succeeding(1...5)
        #expect(ids(Actions(actions.reversed())) == [5, 4, 3, 2, 1])
        if case .succeed(let id, _) = actions.last {
            #expect(id.rawValue == 5)
        } else {
            Issue.record("no last action")
        }
    }
}
