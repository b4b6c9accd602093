//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

/// A key-value store over a length-prefixed JSON protocol: `json-kv serve` listens, and
/// `json-kv set`, `get`, `remove` and `list` each send it one typed request and print its
/// typed answer.
@main
struct JSONKeyValue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json-kv",
        abstract: "A key-value store speaking length-prefixed JSON messages over TCP.",
        subcommands: [KeyValueServer.self, SetCommand.self, GetCommand.self, RemoveCommand.self, ListCommand.self]
    )
}
