//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol

/// A connection the server state knows, numbered by the I/O layer in the order clients connect.
public typealias ChatClientID = Int

/// What the server state asks the I/O around it to do after an event.
///
/// The state never writes or closes anything itself; ``ChatServerState`` returns these and the
/// caller carries them out in order, which keeps the protocol logic testable as plain values.
public enum ChatServerAction: Sendable, Hashable {
    /// Send `message` to one client.
    case send(ChatClientID, IRCMessage)
    /// Send the same `message` to each of the clients, in the order given. The I/O layer
    /// serializes it once.
    case broadcast([ChatClientID], IRCMessage)
    /// Write nothing more after what is queued, then upgrade the connection to TLS as server.
    case startTLS(ChatClientID)
    /// Send `ERROR :Closing Link: <host> (<reason>)` if the connection can still carry it,
    /// then close the connection. The client is already gone from the state.
    case close(ChatClientID, reason: String)
}
