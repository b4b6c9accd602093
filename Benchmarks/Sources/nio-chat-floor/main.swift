//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// nio-chat-floor PORT: a chat relay written on raw SwiftNIO, with none of the protocol.
//
// It answers just enough IRC for chatload (NICK and USER with 001, JOIN with 366, PING with
// PONG) and relays each PRIVMSG to every other member of the one channel. It has no
// registration rules, no send-queue limit, no flood limit and no library in between: it is
// not a server to run, but the floor under chat-server, measured in the same run, so that the
// report says how much of chat-server's latency and CPU is SwiftNIO's and the machine's, and
// how much is the library's and the server's (see Benchmarks/FINDINGS.md).
//
// Writes are gathered the way chat-server and ngIRCd gather them: a relayed line is written
// to each member's channel without a flush, and every channel written to is flushed once when
// its event loop has run what was queued before (one `writev` per member per pass).
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The members of the channel, and one ``FlushBatcher`` per event loop.
final class Members: Sendable {
    private let members = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    private let batchers: [ObjectIdentifier: FlushBatcher]

    init(group: MultiThreadedEventLoopGroup) {
        var batchers: [ObjectIdentifier: FlushBatcher] = [:]
        for loop in group.makeIterator() { batchers[ObjectIdentifier(loop)] = FlushBatcher(loop: loop) }
        self.batchers = batchers
    }

    func add(_ channel: any Channel) { members.withLockedValue { $0[ObjectIdentifier(channel)] = channel } }
    func remove(_ channel: any Channel) { members.withLockedValue { $0[ObjectIdentifier(channel)] = nil } }

    /// Writes `line` to every member but `sender`, with one hop to each other event loop.
    func relay(_ line: ByteBuffer, from sender: any Channel) {
        let targets = members.withLockedValue { Array($0.values) }
        var byLoop: [ObjectIdentifier: [any Channel]] = [:]
        for channel in targets where channel !== sender {
            byLoop[ObjectIdentifier(channel.eventLoop), default: []].append(channel)
        }
        for (loop, channels) in byLoop {
            guard let batcher = batchers[loop] else { continue }
            if batcher.loop.inEventLoop {
                batcher.write(line, to: channels)
            } else {
                batcher.loop.execute { batcher.write(line, to: channels) }
            }
        }
    }
}

/// Writes without flushing, and flushes every channel written to once the loop has run the
/// tasks queued before the flush.
final class FlushBatcher: @unchecked Sendable {
    // Touched only on `loop`, which is what makes the unchecked conformance hold.
    let loop: any EventLoop
    private var dirty: [ObjectIdentifier: any Channel] = [:]
    private var scheduled = false

    init(loop: any EventLoop) { self.loop = loop }

    func write(_ line: ByteBuffer, to channels: [any Channel]) {
        loop.preconditionInEventLoop()
        for channel in channels {
            channel.write(line, promise: nil)
            dirty[ObjectIdentifier(channel)] = channel
        }
        if !scheduled {
            scheduled = true
            loop.execute { self.flushAll() }
        }
    }

    private func flushAll() {
        scheduled = false
        let channels = dirty.values
        dirty.removeAll(keepingCapacity: true)
        for channel in channels { channel.flush() }
    }
}

/// Splits the stream at LF, dropping a CR before it.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else { return .needMoreData }
        var line = buffer.readSlice(length: newline - buffer.readerIndex + 1)!
        line.moveWriterIndex(to: line.writerIndex - 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}

/// One client: answers registration and JOIN, relays PRIVMSG.
final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let members: Members
    private var nick = "*"

    init(members: Members) { self.members = members }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = String(buffer: unwrapInboundIn(data))
        if line.hasPrefix("PRIVMSG ") {
            var out = context.channel.allocator.buffer(capacity: line.utf8.count + nick.utf8.count + 8)
            out.writeString(":\(nick)!u@h \(line)\r\n")
            members.relay(out, from: context.channel)
        } else if line.hasPrefix("NICK ") {
            nick = String(line.dropFirst(5))
        } else if line.hasPrefix("USER ") {
            reply(":floor 001 \(nick) :welcome", context: context)
        } else if line.hasPrefix("JOIN ") {
            members.add(context.channel)
            reply(":floor 366 \(nick) \(line.dropFirst(5)) :End of NAMES list", context: context)
        } else if line.hasPrefix("PING ") {
            reply("PONG \(line.dropFirst(5))", context: context)
        }
    }

    private func reply(_ line: String, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: line + "\r\n")), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        members.remove(context.channel)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
    print("usage: nio-chat-floor PORT   (listens on 127.0.0.1)")
    exit(64)
}
let group = MultiThreadedEventLoopGroup.singleton
let members = Members(group: group)
let server = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
            try channel.pipeline.syncOperations.addHandler(RelayHandler(members: members))
        }
    }
    .bind(host: "127.0.0.1", port: port)
    .get()
try await server.closeFuture.get()
