import NIOCore
import NIOEmbedded
import Testing

@testable import StreamTaskCore

/// A listener hands an accepted task out as soon as its handler is in the pipeline, before the
/// channel is active: a task cancelled in that window must still close its channel and complete.
@Suite struct StreamTaskCancelBeforeActiveTests {
    @Test func aTaskCancelledBeforeItsChannelIsActiveClosesItOnceActiveAndCompletes() throws {
        let channel = EmbeddedChannel()
        let session = StreamSession(eventLoopGroup: channel.eventLoop)
        let task = StreamTask(
            session: session, identifier: 1, host: "127.0.0.1", port: 1, origin: .accepted, eventLoop: channel.eventLoop)
        try task.attach(channel)
        #expect(!channel.isActive)
        task.cancel()
        #expect(task.state == .canceling)

        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.run()

        #expect(!channel.isActive, "the channel was closed as it came up")
        #expect(task.state == .completed)
        #expect(task.error?.code == .cancelled)
    }
}
