//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import ChatClientCore
@testable import StreamTaskCore
@testable import StreamTaskDNSSD

/// How the chat client words a failure: one line, no library type names.
@Suite struct ChatErrorWordingTests {
    /// A server found on the LAN whose every address refused: one line with the last reason,
    /// not the library's list of every address and its whole error.
    @Test func aDiscoveredServerNoAddressAnsweredIsOneLine() {
        let last = StreamTaskError(.connectionRefused, "connection refused", host: "fe80::1%eth0", port: 6667)
        let error = DNSSDError(
            .connectFailed,
            "could not connect to Team Chat._irc._tcp.local.: every address failed: 192.0.2.1 port 6667: "
                + "\(last); fe80::1%eth0 port 6667: \(last)",
            underlying: last)
        let said = ChatClient.describe(error)
        #expect(said == "could not connect to the server found on the LAN: connection refused")
        #expect(!said.contains("StreamTaskError") && !said.contains("\n"))
    }

    @Test func aLibraryErrorIsItsMessage() {
        let said = ChatClient.describe(StreamTaskError(.timedOut, "the read timed out after 30 s"))
        #expect(said == "the read timed out after 30 s")
    }
}
