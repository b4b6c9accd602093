//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskStateMachine {
    /// What one step of the machine decided, in order: a collection that keeps its first two
    /// actions in itself and allocates only for a third.
    ///
    /// Almost every step decides one or two things (hand a write to the channel and flush it;
    /// complete a read; ask for more input), and a step runs for every read and write, so an
    /// array here was a heap allocation per operation, or two, for nothing.
    struct Actions: RandomAccessCollection, ExpressibleByArrayLiteral {
        private var first: Action?
        private var second: Action?
        /// The actions after the first two, in order.
        private var rest: [Action] = []

        /// No actions.
        init() {}

        /// One action.
        init(_ action: Action) {
            first = action
        }

        /// For tests and cold paths only: the variadic arguments of a literal are an array, the
        /// allocation this type is here to avoid. Steps write `Actions(action)`.
        init(arrayLiteral actions: Action...) {
            self.init(actions)
        }

        init(_ actions: some Sequence<Action>) {
            for action in actions { append(action) }
        }

        var startIndex: Int { 0 }

        var endIndex: Int {
            guard first != nil else { return 0 }
            guard second != nil else { return 1 }
            return 2 + rest.count
        }

        subscript(position: Int) -> Action {
            switch position {
            case 0: first!
            case 1: second!
            default: rest[position - 2]
            }
        }

        /// Makes the write at `position` ask for its outcome.
        mutating func confirmWrite(at position: Int) {
            guard case .write(let id, let bytes, _) = self[position] else {
                preconditionFailure("action \(position) is not a write")
            }
            let confirmed = Action.write(id, bytes, confirm: true)
            switch position {
            case 0: first = confirmed
            case 1: second = confirmed
            default: rest[position - 2] = confirmed
            }
        }

        mutating func append(_ action: Action) {
            if first == nil {
                first = action
            } else if second == nil {
                second = action
            } else {
                rest.append(action)
            }
        }

        static func += (actions: inout Actions, more: Actions) {
            for action in more { actions.append(action) }
        }

        static func + (actions: Actions, more: Actions) -> Actions {
            var all = actions
            all += more
            return all
        }
    }
}
