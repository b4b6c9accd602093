//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// Where the test runner is: the example executables are built next to it.
enum BuiltProducts {
    static var directory: URL {
        let runner =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent()
    }

    /// The path of the built example `name` (`chat-client`, `chat-server`).
    static func path(_ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ChildProcessError(
                description: "\(name) is not built at \(path): run `swift build --build-tests` first")
        }
        return path
    }

    /// The path of an installed program, or an error naming the Debian package to install.
    static func installed(_ command: String, package: String) throws -> String {
        if let path = programPath(command) { return path }
        throw ChildProcessError(
            description:
                "\(command) is not installed and the chat interop tests need it: run scripts/install-deps.sh (it installs \(package)); scripts/test.sh does this for you"
        )
    }
}

/// ngIRCd, the IRC server from Debian's `ngircd` package, on 127.0.0.1 and a port of its own.
struct NgircdServer {
    let process: ObservedProcess
    let port: Int
    /// The port that speaks TLS from the first byte, when started with a certificate.
    let tlsPort: Int?

    /// Starts ngIRCd in the foreground with a configuration of its own; retries another port if
    /// the one picked was taken.
    ///
    /// `name` is its server name; `extra` is added to its configuration as it is (`[Server]`
    /// blocks for links).
    static func start(
        certificateFile: String? = nil, keyFile: String? = nil, name: String = "ngircd.test", extra: String = ""
    ) async throws -> NgircdServer {
        let binary = try BuiltProducts.installed("ngircd", package: "ngircd")
        var lastOutput = ""
        for _ in 0..<5 {
            // Below the ephemeral range and apart from the library tests' 20000-32000.
            let port = Int.random(in: 10_000..<20_000)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ngircd-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config = directory.appendingPathComponent("ngircd.conf")
            let isRoot = geteuid() == 0
            try """
            [Global]
            Name = \(name)
            Info = ngIRCd for the chat tests
            Listen = 127.0.0.1
            Ports = \(port)
            MotdPhrase = ngircd test server
            \(isRoot ? "ServerUID = 65534\nServerGID = 65534" : "")
            [Limits]
            MaxConnectionsIP = 0
            [Options]
            PAM = no
            Ident = no
            DNS = no
            \(certificateFile.map { "[SSL]\nCertFile = \($0)\nKeyFile = \(keyFile ?? "")\nPorts = \(port + 1)" } ?? "")
            \(extra)
            """.write(to: config, atomically: true, encoding: .utf8)
            let process = try ObservedProcess(binary, ["-n", "-f", config.path])
            let last = certificateFile == nil ? port : port + 1
            if await process.waitForOutput(containing: "Now listening on [127.0.0.1]:\(last)", seconds: 15),
                process.child.isRunning()
            {
                return NgircdServer(process: process, port: port, tlsPort: certificateFile == nil ? nil : port + 1)
            }
            lastOutput = process.output
            await process.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        throw ChildProcessError(description: "ngircd did not start listening; its output: \(lastOutput)")
    }

    func stop() async { await process.stop() }
}
