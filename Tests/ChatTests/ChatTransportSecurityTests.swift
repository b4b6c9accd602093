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

/// App Transport Security's domain exceptions over real names: chat-client runs in a mount
/// namespace of its own whose `/etc/hosts` sends `irc.example.test` and `a.irc.example.test` to
/// 127.0.0.1, and connects by name to `openssl s_server` presenting a 1024-bit RSA key. Only an
/// exception that covers the name (`NSExceptionRequiresForwardSecrecy` NO drops the key check,
/// `NSExceptionAllowsInsecureHTTPLoads` lets `--insecure` skip the chain) lets it through.
@Suite(.timeLimit(.minutes(1)))
struct ChatTransportSecurityTests {
    @Test(arguments: [
        // entry, NSIncludesSubdomains, host, accepted
        ("irc.example.test", false, "irc.example.test", true),
        ("example.test", true, "irc.example.test", true),
        ("example.test", false, "irc.example.test", false),
        // One label more, as Apple defines NSIncludesSubdomains: not two.
        ("example.test", true, "a.irc.example.test", false),
    ])
    func aDomainExceptionCoversTheNamesItShould(
        entry: String, subdomains: Bool, host: String, accepted: Bool
    )
        async throws
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try await Self.weakCertificate(in: directory)
        let hosts = directory.appendingPathComponent("hosts")
        try "127.0.0.1 localhost irc.example.test a.irc.example.test\n".write(
            to: hosts, atomically: true, encoding: .utf8)
        let policy = directory.appendingPathComponent("ats.json")
        let settings: [String: Any] = [
            "NSAppTransportSecurity": [
                "NSExceptionDomains": [
                    entry: [
                        "NSIncludesSubdomains": subdomains, "NSExceptionRequiresForwardSecrecy": false,
                        "NSExceptionAllowsInsecureHTTPLoads": true,
                    ]
                ]
            ]
        ]
        try JSONSerialization.data(withJSONObject: settings).write(to: policy)

        let server = try ObservedProcess(
            "/usr/bin/env",
            [
                "openssl", "s_server", "-accept", "127.0.0.1:0", "-naccept", "1", "-cert", certificate, "-key", key,
                "-cipher", "DEFAULT:@SECLEVEL=0",
            ], pipeInput: true)
        #expect(await server.waitForOutput(containing: "ACCEPT 127.0.0.1:"), "\(server.output)")
        let port = try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("ACCEPT ") }?.split(separator: ":").last
                .flatMap { Int($0) }, "\(server.output)")
        let client = try ObservedProcess(
            "/usr/bin/unshare",
            [
                "--mount", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"", hosts.path,
                try BuiltProducts.path("chat-client"), "--host", host, "--port", "\(port)", "--tls", "--insecure",
                "--transport-security", policy.path, "--nick", "atsuser", "--no-reconnect",
            ], pipeInput: true)
        if accepted {
            // s_server prints what arrives over TLS: the client's registration.
            #expect(await server.waitForOutput(containing: "NICK atsuser"), "\(server.output)\n\(client.output)")
            #expect(!client.output.contains("App Transport Security"), "\(client.output)")
        } else {
            #expect(
                await client.waitForOutput(containing: "App Transport Security requires RSA keys of 2048 bits"),
                "\(client.output)")
            #expect(client.output.contains("an NSExceptionDomains entry for \"\(host)\""), "\(client.output)")
        }
        await client.stop()
        await server.stop()
    }

    /// A self-signed certificate for the test names with a 1024-bit RSA key, made with `openssl`.
    static func weakCertificate(in directory: URL) async throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("weak.pem").path
        let key = directory.appendingPathComponent("weak.key").path
        let arguments = [
            "req", "-x509", "-newkey", "rsa:1024", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "2", "-subj", "/CN=weak chat",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:irc.example.test,DNS:a.irc.example.test",
        ]
        let (status, output) = try await offCooperativePool {
            Result { try ChildProcess.runToEnd("/usr/bin/openssl", arguments, in: directory.path) }
        }.get()
        #expect(status == 0, "\(output)")
        return (certificate, key)
    }
}
