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

/// With no DNS-SD daemon to ask, the chat client and the README's DNS-SD sample each end with
/// one line that says so, and fail.
@Suite(.timeLimit(.minutes(1)))
struct ChatClientDiscoveryFailureTests {
    /// chat-client with no server named: the line is in the user's terms and names the
    /// project's loopback-only way to start a daemon, not a system-wide avahi-daemon.
    @Test func withNoDaemonTheClientNamesTheProjectsWayToStartOne() async throws {
        let client = try ObservedProcess(
            try BuiltProducts.path("chat-client"), ["--browse-time", "1", "--nick", "nodaemon"],
            // No system bus here: avahi's library cannot reach a daemon, whatever runs.
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/stk-no-bus"])
        #expect(await client.waitForExit(seconds: 30), "\(client.output)")
        let output = client.output
        #expect(client.child.exitCode != 0, "\(output)")
        #expect(output.contains("no DNS-SD daemon (avahi-daemon) is running"), "\(output)")
        #expect(output.contains("sudo scripts/start-services.sh"), "\(output)")
        for unwanted in ["systemctl", "DNSSDError", "avahi-daemon -D"] {
            #expect(!output.contains(unwanted), "\(unwanted) in: \(output)")
        }
    }

    /// The README's DNS-SD sample, run with no daemon to reach, ends with one line on why and
    /// a failure, not Swift's "Error raised at top level" and a backtrace.
    @Test func theDNSSDSampleEndsWithOneClearLine() async throws {
        let sample = try ObservedProcess(
            try BuiltProducts.path("sample-dnssd"), [],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/stk-no-bus"])
        #expect(await sample.waitForExit(seconds: 30), "\(sample.output)")
        let output = sample.output
        #expect(sample.child.exitCode == 1, "\(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1, "\(output)")
        #expect(lines.first?.hasPrefix("sample-dnssd: ") == true, "\(output)")
        #expect(output.contains("no DNS-SD daemon answered"), "\(output)")
        #expect(!output.contains("Fatal error"), "\(output)")
    }
}
