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

/// Where a client command connects, and how long it waits.
struct KeyValueServerOptions: ParsableArguments {
    @Option(help: "The server's host name or address.")
    var host = "127.0.0.1"

    @Option(help: "The server's port.")
    var port = 7008

    @Option(help: "Seconds allowed for connecting, sending and the answer; 0 waits forever.")
    var timeout: Double = 10

    func validate() throws {
        guard (1...65535).contains(port) else {
            throw ValidationError("--port must be between 1 and 65535 (got \(port))")
        }
        guard timeout >= 0 else {
            throw ValidationError("--timeout must not be negative (got \(timeout))")
        }
    }

    /// Sends `request` and returns the server's answer; a failure is printed and ends the
    /// program with status 1.
    func ask(_ request: KeyValueRequest) async throws -> KeyValueResponse {
        let configuration = StreamSession.Configuration(
            timeoutIntervalForRead: timeout, timeoutIntervalForWrite: timeout, timeoutIntervalForRequest: timeout)
        let session = StreamSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let task = session.streamTask(withHostName: host, port: port)
        task.resume()
        do {
            try await task.send(request, framedBy: KeyValueProtocol.framer, encoder: JSONEncoder(), timeout: timeout)
            task.closeWrite()
            guard
                let response = try await task.readMessage(
                    KeyValueResponse.self, framedBy: KeyValueProtocol.framer, decoder: JSONDecoder(), timeout: timeout)
            else {
                printError("\(task): the server closed the connection without answering")
                throw ExitCode.failure
            }
            return response
        } catch let error as StreamTaskError {
            printError(error.description)
            task.cancel()
            throw ExitCode.failure
        } catch let error as MessageDecodingError {
            printError("the server's answer is not a response: \(error)")
            task.cancel()
            throw ExitCode.failure
        }
    }
}

/// `json-kv set KEY VALUE`.
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Stores a value under a key.")
    @OptionGroup var server: KeyValueServerOptions
    @Argument var key: String
    @Argument var value: String

    func run() async throws {
        try report(await server.ask(.set(key: key, value: value)))
    }
}

/// `json-kv get KEY`: prints the value, or fails with status 2 when there is none.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Prints the value under a key.")
    @OptionGroup var server: KeyValueServerOptions
    @Argument var key: String

    func run() async throws {
        try report(await server.ask(.get(key: key)))
    }
}

/// `json-kv remove KEY`.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forgets a key.")
    @OptionGroup var server: KeyValueServerOptions
    @Argument var key: String

    func run() async throws {
        try report(await server.ask(.remove(key: key)))
    }
}

/// `json-kv list`: one key per line.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Prints every key.")
    @OptionGroup var server: KeyValueServerOptions

    func run() async throws {
        try report(await server.ask(.list))
    }
}

/// Prints what the server answered: values and keys to standard output, the rest to standard
/// error. An answer that says no (no such key, a refusal) ends the program with status 2.
private func report(_ response: KeyValueResponse) throws {
    switch response {
    case .stored:
        printError("stored")
    case .value(let value?):
        printLine(value)
    case .value(nil):
        printError("no such key")
        throw ExitCode(2)
    case .removed(let removed):
        printError(removed ? "removed" : "no such key")
        if !removed { throw ExitCode(2) }
    case .keys(let keys):
        keys.forEach(printLine)
    case .refused(let reason):
        printError("refused: \(reason)")
        throw ExitCode(2)
    }
}
