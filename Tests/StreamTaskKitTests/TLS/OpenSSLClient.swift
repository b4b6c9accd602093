//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers

/// `openssl s_client -quiet` connected to 127.0.0.1: what we write to it goes to the server
/// under TLS, and what the server sends is collected as it arrives.
///
/// `-quiet` implies `-ign_eof`: s_client does not quit when its input ends, so the tests wait
/// for the output they expect (for a bounded time) and then stop it.
final class OpenSSLClient: Sendable {
    private let process: Process
    private let input: Pipe
    private let received: NIOLockedValueBox<Data>

    private init(process: Process, input: Pipe, received: NIOLockedValueBox<Data>) {
        self.process = process
        self.input = input
        self.received = received
    }

    static func start(port: Int, _ arguments: String...) throws -> OpenSSLClient {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet"] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let received = NIOLockedValueBox(Data())
        Thread {
            while let chunk = try? output.fileHandleForReading.read(upToCount: 4096), !chunk.isEmpty {
                received.withLockedValue { $0.append(chunk) }
            }
        }.start()
        return OpenSSLClient(process: process, input: input, received: received)
    }

    func send(_ text: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// What the server has sent so far, once it contains `expected` or after `seconds`.
    func output(containing expected: String, within seconds: Double = 10) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let text = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
            if text.contains(expected) || Date() >= deadline { return text }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}
