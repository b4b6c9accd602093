//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import ChatServerCore

/// Link peers from the command line and from ngIRCd-style `[Server]` blocks.
@Suite struct ChatLinkConfigurationTests {
    @Test func aCommandLineLinkNamesAPeerAndMaybeWhereToConnect() throws {
        let passive = try #require(ChatLinkPeer(argument: "hub.example", password: "pw"))
        #expect(passive.name == "hub.example" && !passive.connectsOut && passive.expectedPassword == "pw")
        let active = try #require(ChatLinkPeer(argument: "hub.example=198.18.0.1:6667", password: "pw"))
        #expect(active.host == "198.18.0.1" && active.port == 6667 && active.connectsOut)
        let six = try #require(ChatLinkPeer(argument: "hub.example=[2001:db8::1]:7000", password: "pw"))
        #expect(six.host == "2001:db8::1" && six.port == 7000)
        for bad in ["", "=h:1", "hub=h", "hub=h:0", "hub=h:70000", "hub=:6667", "hub=[::1:6667", "a b=h:1"] {
            #expect(ChatLinkPeer(argument: bad, password: "pw") == nil, "\(bad)")
        }
    }

    @Test func ngircdsServerBlocksAreRead() throws {
        let digest = String(repeating: "ab", count: 32)
        let peers = try ChatLinkConfigurationFile.peers(
            in: """
                ; an ngircd.conf: other sections are skipped
                [Global]
                    Name = chat.example
                    Ports = 6667
                [Server]
                    Name = hub.example
                    Host = 198.18.0.1
                    Port = 6697
                    MyPassword = mine
                    PeerPassword = theirs
                    SSLConnect = yes
                    SSLFingerprint = sha256:\(digest)
                    Group = 1
                [Server]
                    # only accepts its link
                    Name = leaf.example
                    MyPassword = a
                    PeerPassword = b
                [Server]
                    Name = quiet.example
                    Host = 198.18.0.3
                    Port = 6667
                    Passive = yes
                    MyPassword = a
                    PeerPassword = b
                [Server]
                    Name = ca.example
                    Host = ca.example
                    Port = 6697
                    MyPassword = a
                    PeerPassword = b
                    SSLConnect = yes
                    SSLCAFile = /etc/chat/ca.pem
                """)
        #expect(peers.map(\.name) == ["hub.example", "leaf.example", "quiet.example", "ca.example"])
        #expect(peers[0].host == "198.18.0.1" && peers[0].port == 6697)
        // ngIRCd's meaning: MyPassword is what the peer sends, PeerPassword what we send.
        #expect(peers[0].expectedPassword == "mine" && peers[0].sentPassword == "theirs")
        #expect(peers[0].security == .pinned(sha256: [UInt8](repeating: 0xAB, count: 32)))
        #expect(!peers[1].connectsOut && peers[1].security == .plaintext)
        #expect(!peers[2].connectsOut, "Passive = yes waits for the peer")
        #expect(peers[3].security == .certificateAuthority(pemFile: "/etc/chat/ca.pem"))
    }

    @Test func mistakesNameTheirLine() {
        func error(_ text: String) -> ChatLinkConfigurationFile.ParseError? {
            do {
                _ = try ChatLinkConfigurationFile.peers(in: text)
                return nil
            } catch {
                return error as? ChatLinkConfigurationFile.ParseError
            }
        }
        #expect(
            error("[Server]\nName = a\nMyPassword = x")
                == .init(line: 1, reason: "[Server] a needs MyPassword and PeerPassword"))
        #expect(error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nColour = red")?.line == 5)
        #expect(error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nPort = 99999\nHost = h")?.line == 5)
        #expect(
            error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nPort = 6667")?.reason
                == "[Server] a has a Port but no Host")
        #expect(error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nSSLConnect = maybe")?.line == 5)
        #expect(
            error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nSSLConnect = yes\nSSLFingerprint = md5:00")?
                .line == 6)
        #expect(
            error("[Server]\nName = a\nMyPassword = x\nPeerPassword = y\nSSLConnect = yes\nSSLVerify = no")?.line
                == 6, "no certificate check is refused, not ignored")
        #expect(error("[Server\nName = a")?.line == 1)
        #expect(error("[Server]\nName a") == .init(line: 2, reason: "expected Key = Value"))
        #expect(error("[Global]\nwhatever here is skipped\n") == nil)
    }
}
