//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOEmbedded
import Testing

@testable import StreamTaskCore

/// The handshake handler on an `EmbeddedChannel`: what it sends, what it passes on, how it fails.
@Suite struct ProxyHandshakeHandlerTests {
    /// A connected embedded channel with a handshake handler, and the handshake's promise.
    private func makeChannel<H: ProxyHandshake>(
        _ handshake: H,
        timeout: TimeAmount? = .milliseconds(10_000)
    ) throws -> (EmbeddedChannel, ProxyHandshakeHandler<H>, EventLoopPromise<Void>) {
        let channel = EmbeddedChannel()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = ProxyHandshakeHandler(handshake: handshake, timeout: timeout, promise: promise)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        try channel.pipeline.syncOperations.addHandler(handler)
        return (channel, handler, promise)
    }

    private func outbound(_ channel: EmbeddedChannel) throws -> [UInt8] {
        Array(try #require(try channel.readOutbound(as: ByteBuffer.self)).readableBytesView)
    }

    private func inbound(_ channel: EmbeddedChannel) throws -> String? {
        try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) }
    }

    private var connect: HTTPConnectHandshake { HTTPConnectHandshake(host: "::1", port: 6667, credentials: nil) }

    @Test func connectReplyWithTargetBytesInTheSameReadPassesThemOn() throws {
        let (channel, _, promise) = try makeChannel(connect)
        #expect(try outbound(channel) == Array("CONNECT [::1]:6667 HTTP/1.1\r\nHost: [::1]:6667\r\n\r\n".utf8))
        try channel.writeInbound(
            ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n:irc NOTICE * :hello\r\n"))
        try promise.futureResult.wait()
        #expect(try inbound(channel) == ":irc NOTICE * :hello\r\n")
        // It left the pipeline: later bytes flow straight through.
        #expect(throws: ChannelPipelineError.self) {
            try channel.pipeline.syncOperations.context(handlerType: ProxyHandshakeHandler<HTTPConnectHandshake>.self)
        }
        try channel.writeInbound(ByteBuffer(string: "more"))
        #expect(try inbound(channel) == "more")
    }

    @Test func replyInPiecesPassesNothingUntilTheTunnelIsOpen() throws {
        let (channel, _, promise) = try makeChannel(connect)
        _ = try outbound(channel)
        for piece in ["HTTP/1.1 200", " OK\r\n", "Via: 1.1 proxy\r", "\n\r", "\nX"] {
            try channel.writeInbound(ByteBuffer(string: piece))
        }
        try promise.futureResult.wait()
        #expect(try inbound(channel) == "X")
        #expect(try inbound(channel) == nil)
    }

    @Test func anEndlessHeaderFailsWithBoundedMemory() throws {
        let (channel, handler, promise) = try makeChannel(connect)
        _ = try outbound(channel)
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nX-Endless: "))
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1024)
        var sent = 0
        while channel.isActive && sent < 1024 * 1024 {
            try channel.writeInbound(chunk)
            sent += chunk.readableBytes
            #expect(handler.bufferedByteCount <= HTTPConnectHandshake.maximumHeadLength + chunk.readableBytes)
            #expect(handler.bufferCapacity <= 2 * (HTTPConnectHandshake.maximumHeadLength + chunk.readableBytes))
        }
        #expect(!channel.isActive, "the handler closed the channel")
        #expect(sent <= HTTPConnectHandshake.maximumHeadLength + chunk.readableBytes)
        #expect(handler.bufferedByteCount == 0)
        #expect(throws: ProxyHandshakeError.replyTooLarge(limit: HTTPConnectHandshake.maximumHeadLength)) {
            try promise.futureResult.wait()
        }
        #expect(try inbound(channel) == nil, "nothing of the reply reaches the task")
    }

    @Test func endlessInformationalRepliesFailWithBoundedMemory() throws {
        let (channel, handler, promise) = try makeChannel(connect)
        _ = try outbound(channel)
        // Each 1xx head is complete and small; only their total can give the flood away.
        let informational = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")
        var sent = 0
        while channel.isActive && sent < 1024 * 1024 {
            try channel.writeInbound(informational)
            sent += informational.readableBytes
            #expect(handler.bufferCapacity <= 2 * HTTPConnectHandshake.maximumHeadLength)
        }
        #expect(!channel.isActive, "the handler closed the channel")
        #expect(sent <= HTTPConnectHandshake.maximumHeadLength + informational.readableBytes)
        #expect(throws: ProxyHandshakeError.replyTooLarge(limit: HTTPConnectHandshake.maximumHeadLength)) {
            try promise.futureResult.wait()
        }
    }

    @Test func aHandshakeThatTakesTooLongTimesOut() throws {
        let (channel, _, promise) = try makeChannel(connect, timeout: .milliseconds(5000))
        _ = try outbound(channel)
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(4000))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1000))
        #expect(!channel.isActive)
        #expect(throws: ProxyHandshakeError.timedOut(seconds: 5)) { try promise.futureResult.wait() }
    }

    @Test func theProxyClosingMidHandshakeFailsIt() throws {
        let (channel, _, promise) = try makeChannel(connect)
        _ = try outbound(channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(throws: ProxyHandshakeError.closedByProxy) { try promise.futureResult.wait() }
        #expect(!channel.isActive)
    }

    @Test func socks5WithAuthenticationPassesTheTargetsBytesOn() throws {
        let credentials = ProxyCredentials(username: "user", password: "pass")
        let target = SOCKS5Handshake.Target.name("irc.example", port: 6667)
        let (channel, _, promise) = try makeChannel(SOCKS5Handshake(target: target, credentials: credentials))
        #expect(try outbound(channel) == [0x05, 0x02, 0x00, 0x02])
        try channel.writeInbound(ByteBuffer(bytes: [0x05, 0x02]))
        #expect(
            try outbound(channel) == Array(try SOCKS5Handshake.authenticationRequest(credentials).readableBytesView))
        try channel.writeInbound(ByteBuffer(bytes: [0x01, 0x00]))
        #expect(try outbound(channel) == Array(try SOCKS5Handshake.connectRequest(target).readableBytesView))
        try channel.writeInbound(
            ByteBuffer(bytes: [0x05, 0x00, 0x00, 0x01, 10, 0, 0, 1, 0x1A, 0x0B] + Array("welcome\r\n".utf8)))
        try promise.futureResult.wait()
        #expect(try inbound(channel) == "welcome\r\n")
    }

    @Test(arguments: UInt8(1)...UInt8(9))
    func everySOCKSReplyCodeFailsTheHandshake(code: UInt8) throws {
        let (channel, _, promise) = try makeChannel(SOCKS5Handshake(target: .name("t", port: 1), credentials: nil))
        _ = try outbound(channel)
        try channel.writeInbound(ByteBuffer(bytes: [0x05, 0x00]))
        _ = try outbound(channel)
        try channel.writeInbound(ByteBuffer(bytes: [0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]))
        #expect(throws: ProxyHandshakeError.socksReply(code)) { try promise.futureResult.wait() }
        #expect(!channel.isActive)
        #expect(try inbound(channel) == nil)
    }

    // MARK: The errors a task reports

    private let socksProxy = ProxyEndpoint(kind: .socks5, host: "127.0.0.1", port: 1080)
    private let httpProxy = ProxyEndpoint(kind: .httpConnect, host: "::1", port: 3128)

    @Test(arguments: [
        (UInt8(1), StreamTaskError.Code.proxyRefused, "general SOCKS server failure"),
        (2, .proxyRefused, "not allowed by ruleset"),
        (3, .unreachable, "network unreachable"),
        (4, .unreachable, "host unreachable"),
        (5, .connectionRefused, "connection refused"),
        (6, .connectTimeout, "TTL expired"),
        (7, .proxyRefused, "command not supported"),
        (8, .proxyRefused, "address type not supported"),
        (9, .proxyRefused, "unassigned reply code 0x09"),
    ])
    func socksReplyCodesBecomeReadableErrors(reply: UInt8, code: StreamTaskError.Code, text: String) {
        let error = ProxyErrorMapper.mapHandshake(
            ProxyHandshakeError.socksReply(reply), proxy: socksProxy, host: "target.example", port: 25)
        #expect(error.code == code)
        #expect(error.description.contains(text))
        #expect(error.description.contains("SOCKS5 proxy 127.0.0.1:1080"))
        #expect(error.description.contains("target.example:25"))
    }

    @Test func httpErrorsNameProxyTargetStatusAndReason() {
        let refused = ProxyErrorMapper.mapHandshake(
            ProxyHandshakeError.httpStatus(403, reason: "Forbidden"), proxy: httpProxy, host: "target.example", port: 25
        )
        #expect(refused.code == .proxyRefused)
        #expect(refused.description.contains("HTTP proxy [::1]:3128"))
        #expect(refused.description.contains("403 Forbidden"))
        #expect(refused.description.contains("target.example:25"))
        let auth = ProxyErrorMapper.mapHandshake(
            ProxyHandshakeError.authenticationRequired(
                credentialsSent: false, status: "407 Proxy Authentication Required"),
            proxy: httpProxy, host: "t", port: 1)
        #expect(auth.code == .proxyAuthenticationRequired)
        #expect(auth.message.contains("requires authentication (407 Proxy Authentication Required)"))
        let timeout = ProxyErrorMapper.mapHandshake(
            ProxyHandshakeError.timedOut(seconds: 2), proxy: httpProxy, host: "t", port: 1)
        #expect(timeout.code == .proxyHandshakeTimeout)
    }
}
