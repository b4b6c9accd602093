//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import NIOConcurrencyHelpers
import StreamTaskKit

/// Watches a link's stream task for what the library's route monitor tells about its path.
///
/// When the path goes away (the task is no longer viable: its address or interface is gone),
/// the connection asks the peer at once with a `PING` instead of waiting for the link to fall
/// idle, so a dead link is a netsplit after the ping timeout alone. A better route is only
/// logged: moving a server link means closing it, which is a netsplit of its own.
final class ChatLinkPathWatch: Sendable {
    private let lost: NIOLockedValueBox<Bool>
    private let watcher: Task<Void, Never>

    /// Starts watching `task`, logging to `logger`.
    init(task: StreamTask, logger: Logger) {
        let lost = NIOLockedValueBox(false)
        self.lost = lost
        watcher = Task {
            for await event in task.events {
                switch event {
                case .viabilityChanged(let isViable):
                    lost.withLockedValue { $0 = !isViable }
                    logger.notice(
                        isViable ? "a link's path is back" : "a link's path went away; asking the peer now",
                        metadata: ["host": "\(task.host)"])
                case .betterRouteDiscovered:
                    logger.info(
                        "a better route to a linked server appeared; the link stays where it is",
                        metadata: ["host": "\(task.host)"])
                default:
                    break
                }
            }
        }
    }

    /// Whether the path went away and has not come back.
    var isLost: Bool { lost.withLockedValue { $0 } }

    /// Stops watching.
    func stop() {
        watcher.cancel()
    }
}
