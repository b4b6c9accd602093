//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One channel on the server: its name as first written, its members in the order they
/// joined, and its topic.
public struct ChatChannel: Sendable, Hashable {
    /// The name as the client who created the channel wrote it (`#Chat`).
    public let name: String
    /// Members in the order they joined.
    public private(set) var members: [ChatClientID] = []
    /// The topic, or `nil` when none is set.
    public var topic: String?
    /// The nickname of whoever set the topic.
    public var topicSetter = ""
    /// When the topic was set, in Unix time.
    public var topicTime = 0
    /// When the channel was created, in Unix time (`329`).
    public let creationTime: Int

    /// A new, empty channel.
    public init(name: String, creationTime: Int) {
        self.name = name
        self.creationTime = creationTime
    }

    /// Whether `client` is a member.
    public func contains(_ client: ChatClientID) -> Bool { members.contains(client) }

    /// Adds `client` after the current members.
    public mutating func add(_ client: ChatClientID) {
        if !contains(client) { members.append(client) }
    }

    /// Removes `client`.
    public mutating func remove(_ client: ChatClientID) {
        members.removeAll { $0 == client }
    }
}
