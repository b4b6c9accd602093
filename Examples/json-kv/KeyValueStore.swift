//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The server's values, shared by every connection, bounded so that no client can make the
/// server hold without limit.
actor KeyValueStore {
    /// The most keys stored at once.
    static let maximumKeyCount = 10_000

    private var values: [String: String] = [:]

    /// The response to `request`.
    func answer(_ request: KeyValueRequest) -> KeyValueResponse {
        switch request {
        case .set(let key, let value):
            if values[key] == nil, values.count >= Self.maximumKeyCount {
                return .refused(reason: "the store is full (\(Self.maximumKeyCount) keys)")
            }
            values[key] = value
            return .stored
        case .get(let key):
            return .value(found: values[key])
        case .remove(let key):
            return .removed(existed: values.removeValue(forKey: key) != nil)
        case .list:
            return .keys(sorted: values.keys.sorted())
        }
    }
}
