//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Dispatch
import ExampleSupport
import Foundation
import StreamTaskKit

/// A line echo server: every line a client sends comes back to it, until the client ends its
/// side of the stream.
///
/// It prints `listening on HOST:PORT` once it is bound (with the real port when `--port 0` asked
/// the system to pick one), so scripts can read the port from its first line of output.
@main
struct EchoServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo-server",
        abstract: "Echoes every line a client sends back to it."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 7007

    @Option(help: "The most connections served at once; more wait in the kernel's backlog.")
    var maxConnections: Int?

    /// The longest line accepted, newline included; a longer one ends its connection.
    static let maximumLineLength = 4096

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535 (got \(port))")
        }
        if let maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections must be at least 1 (got \(maxConnections))")
        }
    }

    func run() async throws {
        let listener = StreamListener(host: host, port: port, maximumConnections: maxConnections ?? .max)
        do {
            try await listener.start()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        let address = host.contains(":") ? "[\(host)]" : host
        // Scripts wait for this line: written at once, not held in stdio's buffer.
        printLine("listening on \(address):\(listener.port ?? port)")

        // SIGINT or SIGTERM: stop accepting, give open connections 2 s to finish, then cancel
        // them. `connections` ends once the listener is shut down, which ends the loop below.
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            printError("signal \(signal): shutting down")
            Task { await listener.shutdown(gracePeriod: 2) }
        }
        defer { signals.cancel() }

        // One child task per connection. A discarding group keeps nothing of a finished child,
        // so a long-running server does not accumulate one result per connection it served.
        await withDiscardingTaskGroup { group in
            for await task in listener.connections {
                group.addTask { await Self.serve(task) }
            }
        }
    }

    /// Echoes `task`'s lines until the client ends its side of the stream, then ends ours.
    static func serve(_ task: StreamTask) async {
        let newline = Data("\n".utf8)
        do {
            // `nil` means end of stream with nothing left; a last line without a newline comes
            // back as it is and is echoed as it is.
            while let line = try await task.readData(
                upToAndIncluding: newline, maxLength: maximumLineLength, timeout: 0)
            {
                try await task.write(line, timeout: 0)
            }
            // Sends our end of stream once every echo has been written; with the client's end of
            // stream already received, the connection then closes.
            task.closeWrite()
        } catch {
            // An over-long line (delimiterNotFound), a reset, or cancellation at shutdown.
            printError("\(task): \(error)")
            task.cancel()
        }
    }
}
