//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import ExampleSupport
import Foundation
import StreamTaskKit

/// `json-kv serve`: a listener that answers every client's requests from one shared store.
///
/// It prints `listening on HOST:PORT` once it is bound (the real port when `--port 0` asked the
/// system to pick one), so scripts can read the port from its first line of output.
struct KeyValueServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answers key-value requests, length-prefixed JSON, until SIGINT or SIGTERM."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 7008

    @Option(help: "Seconds a client may stay silent, or take to read an answer, before it is dropped.")
    var idleTimeout: Double = 60

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535 (got \(port))")
        }
        guard idleTimeout > 0 else {
            throw ValidationError("--idle-timeout must be positive (got \(idleTimeout))")
        }
    }

    func run() async throws {
        let listener = StreamListener(host: host, port: port, maximumConnections: 256)
        do {
            try await listener.start()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        printLine("listening on \(host.contains(":") ? "[\(host)]" : host):\(listener.port ?? port)")
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            printError("signal \(signal): shutting down")
            Task { await listener.shutdown(gracePeriod: 2) }
        }
        defer { signals.cancel() }

        let store = KeyValueStore()
        await withDiscardingTaskGroup { group in
            for await task in listener.connections {
                group.addTask { await serve(task, from: store) }
            }
        }
    }

    /// Answers `task`'s requests, one response each, until the client ends its side.
    private func serve(_ task: StreamTask, from store: KeyValueStore) async {
        let framer = KeyValueProtocol.framer
        // An iterator rather than `for try await`: a request that does not decode throws, and
        // the same iterator then goes on with the next one.
        var requests = task.messages(
            of: KeyValueRequest.self, framedBy: framer, decoder: JSONDecoder(), timeout: idleTimeout
        ).makeAsyncIterator()
        do {
            while true {
                let response: KeyValueResponse
                do {
                    guard let request = try await requests.next() else { break }
                    response = await store.answer(request)
                } catch let error as MessageDecodingError {
                    response = .refused(reason: "message \(error.position) is not a request: \(error.underlyingError)")
                }
                try await task.send(response, framedBy: framer, encoder: JSONEncoder(), timeout: idleTimeout)
            }
            task.closeWrite()
        } catch {
            // A frame over the maximum or cut short, a client gone silent, a reset: this
            // connection ends, and every other one goes on.
            printError("\(task): \(error)")
            task.cancel()
        }
    }
}
