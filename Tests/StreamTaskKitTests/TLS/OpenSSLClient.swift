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
    private let child: ChildProcess

    private init(child: ChildProcess) {
        self.child = child
    }

    static func start(port: Int, _ arguments: String...) throws -> OpenSSLClient {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("s_client-\(UUID().uuidString)").path
        let child = try ChildProcess(
            "/usr/bin/env", ["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet"] + arguments,
            output: output, errors: "/dev/null", pipeInput: true)
        return OpenSSLClient(child: child)
    }

    func send(_ text: String) {
        try? child.input?.write(contentsOf: Data(text.utf8))
    }

    /// What the server has sent so far, once it contains `expected` or after `seconds`.
    func output(containing expected: String, within seconds: Double = 10) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let text = String(decoding: FileManager.default.contents(atPath: child.outputPath) ?? Data(), as: UTF8.self)
            if text.contains(expected) || Date() >= deadline { return text }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit {
        child.stop(grace: 0)
        try? FileManager.default.removeItem(atPath: child.outputPath)
    }
}
