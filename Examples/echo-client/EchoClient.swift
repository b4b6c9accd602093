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

/// Sends each line of standard input to an echo server and prints what comes back.
///
/// Prints the echoed lines to standard output and, at the end, `echoed N lines` to standard
/// error. A connection error is printed to standard error and ends the program with status 1.
@main
struct EchoClient: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo-client",
        abstract: "Sends lines from standard input to an echo server and prints the echoes."
    )

    @Option(help: "The server's host name or address.")
    var host = "127.0.0.1"

    @Option(help: "The server's port.")
    var port = 7007

    @Option(help: "Seconds allowed for connecting, and for each write and each echo; 0 waits forever.")
    var timeout: Double = 10

    /// The longest echo accepted, newline included.
    static let maximumLineLength = 64 * 1024

    func validate() throws {
        guard (1...65535).contains(port) else {
            throw ValidationError("--port must be between 1 and 65535 (got \(port))")
        }
        guard timeout >= 0 else {
            throw ValidationError("--timeout must not be negative (got \(timeout))")
        }
    }

    func run() async throws {
        // Reads and writes below take these session-wide timeouts.
        let configuration = StreamSession.Configuration(
            timeoutIntervalForRead: timeout,
            timeoutIntervalForWrite: timeout,
            timeoutIntervalForRequest: timeout
        )
        let session = StreamSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let task = session.streamTask(withHostName: host, port: port)
        // Connects in the background; the first write waits for the connection, and fails
        // with the connect error if there is none.
        task.resume()

        let newline = Data("\n".utf8)
        var count = 0
        do {
            while let line = await Self.readStandardInputLine() {
                try await task.write(Data((line + "\n").utf8))
                guard let echo = try await task.readData(upToAndIncluding: newline, maxLength: Self.maximumLineLength),
                    echo.last == UInt8(ascii: "\n")
                else {
                    printError("\(task): the server closed the connection before echoing line \(count + 1)")
                    throw ExitCode.failure
                }
                printLine(String(decoding: echo.dropLast(), as: UTF8.self))
                count += 1
            }
            // Tell the server we are done, then read until it ends its side too. An echo server
            // sends nothing more, but print anything it does send.
            task.closeWrite()
            while let rest = try await task.readData(upToAndIncluding: newline, maxLength: Self.maximumLineLength) {
                printLine(
                    String(decoding: rest.last == UInt8(ascii: "\n") ? rest.dropLast() : rest[...], as: UTF8.self))
            }
        } catch let error as StreamTaskError {
            printError(error.description)
            task.cancel()
            throw ExitCode.failure
        }
        printError("echoed \(count) \(count == 1 ? "line" : "lines")")
    }

    /// The next line of standard input without its line ending, or `nil` at end of input.
    ///
    /// `readLine()` blocks its thread until a line arrives, so it runs on a Dispatch thread
    /// rather than on one of the few threads that run Swift tasks.
    static func readStandardInputLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: readLine(strippingNewline: true))
            }
        }
    }
}
