//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation
import NIOConcurrencyHelpers
import StreamTaskCore
import StreamTaskTestSupport
import Testing

@testable import StreamTaskDNSSD

/// `publish(options: .listenForConnections)` against the real avahi-daemon, as a Darwin server
/// uses it: the service listens, and its delegate gets each client as a pair of streams.
@Suite(.timeLimit(.minutes(1))) struct NetServiceListeningTests {
    struct Listening: Sendable {
        var publishedPort = -1
        var resolvedPort = -1
        var published = false
        var stopped = false
        var portAfterStop = -1
    }

    @Test func aServicePublishedToListenHandsEachConnectionOverAsStreams() async throws {
        try await requireDaemon()
        let type = uniqueServiceType()
        let name = uniqueServiceName()
        let delegate = GreetingDelegate()
        let port = NIOLockedValueBox(-1)
        let clientsDone = NIOLockedValueBox(false)
        async let served = offCooperativePool { () -> Listening in
            var run = Listening()
            let service = NetService(domain: "local.", type: type, name: name, port: 0)
            service.delegate = delegate
            service.publish(options: .listenForConnections)
            run.published = runCurrentRunLoop(upTo: 10) { delegate.published }
            run.publishedPort = service.port
            port.withLockedValue { $0 = service.port }
            // The daemon has the port the listener got.
            let resolving = NetService(domain: "local.", type: type, name: name)
            let resolver = DelegateRecorder()
            resolving.delegate = resolver
            resolving.resolve(withTimeout: 5)
            _ = runCurrentRunLoop(upTo: 10) { resolver.saw("didResolveAddress") || resolver.saw("didNotResolve") }
            run.resolvedPort = resolving.port
            resolving.stop()
            _ = runCurrentRunLoop(upTo: 15) { clientsDone.withLockedValue { $0 } }
            service.stop()
            run.stopped = runCurrentRunLoop(upTo: 5) { delegate.stopped }
            run.portAfterStop = service.port
            return run
        }
        #expect(await eventually(15) { port.withLockedValue { $0 } != -1 })
        let servicePort = port.withLockedValue { $0 }
        var replies: [String] = []
        for client in 1...2 where servicePort > 0 {
            replies.append(try await converse(port: servicePort, line: "hello \(client)\n"))
        }
        clientsDone.withLockedValue { $0 = true }
        let run = await served
        #expect(run.published)
        #expect(run.publishedPort > 0, "port 0 asked for any free port; the service reports it")
        #expect(run.resolvedPort == run.publishedPort)
        #expect(replies == ["welcome hello 1\n", "welcome hello 2\n"])
        #expect(delegate.accepted == ["hello 1\n", "hello 2\n"])
        #expect(delegate.acceptedOnTheServiceThread)
        #expect(run.stopped)
        #expect(run.portAfterStop == run.publishedPort)
        // Stopped, the service no longer listens.
        var refusedAfterStop = false
        for _ in 0..<50 where !refusedAfterStop {
            refusedAfterStop = await refused(port: servicePort)
            if !refusedAfterStop { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refusedAfterStop)
    }

    @Test func aTypeThatIsNotTCPOrAPortTakenFailsToPublish() async throws {
        try await requireDaemon()
        let held = StreamListener(host: "127.0.0.1", port: 0)
        try await held.start()
        let heldPort = try #require(held.port)
        let (udp, taken) = await offCooperativePool { () -> (DelegateRecorder, DelegateRecorder) in
            let udp = DelegateRecorder()
            let udpService = NetService(
                domain: "local.", type: "_streamtaskkit._udp.", name: uniqueServiceName(), port: 0)
            udpService.delegate = udp
            udpService.publish(options: .listenForConnections)
            let taken = DelegateRecorder()
            let takenService = NetService(
                domain: "local.", type: uniqueServiceType(), name: uniqueServiceName(), port: Int32(heldPort))
            takenService.delegate = taken
            takenService.publish(options: .listenForConnections)
            _ = runCurrentRunLoop(upTo: 10) { udp.saw("didNotPublish") && taken.saw("didNotPublish") }
            return (udp, taken)
        }
        await held.shutdown(gracePeriod: 0)
        #expect(udp.names == ["willPublish", "didNotPublish"])
        #expect(udp.calls("didNotPublish").first?.errorCode == NetService.ErrorCode.badArgumentError.rawValue)
        #expect(taken.names == ["willPublish", "didNotPublish"])
        #expect(taken.calls("didNotPublish").first?.errorCode == NetService.ErrorCode.unknownError.rawValue)
    }

    /// Connects over loopback, sends `line`, and reads the reply until the end of the stream.
    private func converse(port: Int, line: String) async throws -> String {
        let task = StreamSession.shared.streamTask(withHostName: "127.0.0.1", port: port)
        task.resume()
        try await task.write(Data(line.utf8), timeout: 10)
        var reply = Data()
        while true {
            let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 1024, timeout: 10)
            reply += data ?? Data()
            if atEOF { break }
        }
        task.cancel()
        return String(decoding: reply, as: UTF8.self)
    }

    private func refused(port: Int) async -> Bool {
        let task = StreamSession.shared.streamTask(withHostName: "127.0.0.1", port: port)
        task.resume()
        defer { task.cancel() }
        do {
            try await task.write(Data("x".utf8), timeout: 5)
            return false
        } catch {
            return (error as? StreamTaskError)?.code == .connectionRefused
        }
    }
}

/// A Darwin-style listening service's delegate: answers each client's first line with
/// "welcome" and that line, then ends the connection, all on the service's run loop.
final class GreetingDelegate: NSObject, NetServiceDelegate, @unchecked Sendable {
    // @unchecked Sendable: every `var` is behind `lock`.
    private let lock = NIOLock()
    private var lines: [String] = []
    private var didPublish = false
    private var didStop = false
    private var threads: Set<ObjectIdentifier> = []
    private var serviceThread: ObjectIdentifier?

    var accepted: [String] { lock.withLock { lines } }
    var published: Bool { lock.withLock { didPublish } }
    var stopped: Bool { lock.withLock { didStop } }
    var acceptedOnTheServiceThread: Bool {
        lock.withLock { serviceThread != nil && threads == [serviceThread!] }
    }

    func netServiceDidPublish(_ sender: NetService) {
        lock.withLock {
            didPublish = true
            serviceThread = ObjectIdentifier(Thread.current)
        }
    }

    func netServiceDidStop(_ sender: NetService) {
        lock.withLock { didStop = true }
    }

    func netService(_ sender: NetService, didAcceptConnectionWith inputStream: InputStream, outputStream: OutputStream)
    {
        inputStream.open()
        outputStream.open()
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while inputStream.read(&byte, maxLength: 1) == 1 {
            line.append(byte)
            if byte == UInt8(ascii: "\n") { break }
        }
        let reply = Array("welcome ".utf8) + line
        _ = outputStream.write(reply, maxLength: reply.count)
        outputStream.close()
        inputStream.close()
        lock.withLock {
            lines.append(String(decoding: line, as: UTF8.self))
            threads.insert(ObjectIdentifier(Thread.current))
        }
    }
}
#endif
