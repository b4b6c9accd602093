//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskKit
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLRequest on Linux
#endif

// The other articles of Sources/StreamTaskCore/Docs.docc and Sources/StreamTaskHTTP/Docs.docc,
// and the umbrella StreamTaskKit.md.

func landingPage() async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/StreamTaskCore.md 1
    let session = StreamSession()
    let task = session.streamTask(withHostName: "example.com", port: 7)
    task.resume()
    try await task.write(Data("hello\r\n".utf8), timeout: 5)
    let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 4096, timeout: 5)
    // end sample
    _ = (data, atEOF)
}

func dataTaskUpgrade(session: StreamSession) async throws {
    // sample: Sources/StreamTaskHTTP/Docs.docc/DataTasks.md 1
    var request = URLRequest(url: URL(string: "ws://chat.example/socket")!)
    request.setValue("websocket", forHTTPHeaderField: "Upgrade")
    request.setValue("Upgrade", forHTTPHeaderField: "Connection")
    request.setValue(key, forHTTPHeaderField: "Sec-WebSocket-Key")
    request.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")

    let dataTask = session.dataTask(with: request)
    let response = try await dataTask.receiveResponse()      // resumes the task
    guard response.statusCode == 101 else {
        dataTask.cancel()
        throw UpgradeRefused(status: response.statusCode)
    }
    let stream = try await dataTask.becomeStream()
    try await stream.write(firstFrame)                       // WebSocket frames, no HTTP left
    // end sample
}

func dataTaskByteStreams(task: StreamTask) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/StreamHandover.md 1
    let (bytes, writer) = try await task.captureByteStreams()
    try await writer.write(Data("hello\n".utf8))
    writer.finish()                                          // end of stream; reading goes on
    for try await chunk in bytes { handle(chunk) }
    // end sample
}

/// The handover article's Darwin-style delegate: the streams scheduled in the main run loop.
final class StreamHandoverDelegate: NSObject, StreamSessionStreamDelegate, StreamDelegate {
    // sample: Sources/StreamTaskCore/Docs.docc/StreamHandover.md 2
    func urlSession(_ session: StreamSession, streamTask: StreamSessionStreamTask,
                    didBecome inputStream: InputStream, outputStream: OutputStream) {
        for stream in [inputStream, outputStream] as [Stream] {
            stream.delegate = self                     // a StreamDelegate
            stream.schedule(in: .main, forMode: .default)
            stream.open()
        }
    }
    // end sample
}

func streamHandoverSecurityLevel(inputStream: InputStream, outputStream: OutputStream) {
    // sample: Sources/StreamTaskCore/Docs.docc/StreamHandover.md 3
    // The server said "220 Ready to start TLS".
    inputStream.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
    outputStream.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
    // What is written from here on is sent protected, once the handshake is done.
    // end sample
}

func streamHandoverToAHost() {
    // sample: Sources/StreamTaskCore/Docs.docc/StreamHandover.md 4
    var input: InputStream?
    var output: OutputStream?
    Stream.getStreamsToHost(withName: "irc.example", port: 6667, inputStream: &input, outputStream: &output)
    // end sample
    _ = (input, output)
}

func performanceExecutor(task: StreamTask) {
    // sample: Sources/StreamTaskCore/Docs.docc/Performance.md 1
    let echo = Task(executorPreference: task.executor) {
        while let line = try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 1024) {
            try await task.write(line)
        }
    }
    // end sample
    _ = echo
}

func performancePromise(task: StreamTask) {
    // sample: Sources/StreamTaskCore/Docs.docc/Performance.md 2
    let promise = task.eventLoop.makePromise(of: Void.self)
    promise.futureResult.whenComplete { result in
        // On the loop: send what has queued up meanwhile, or stop on failure.
    }
    task.write(batch, timeout: 0, promise: promise)
    // end sample
}

func proxiesArticle() throws {
    // sample: Sources/StreamTaskCore/Docs.docc/Proxies.md 1
    let configuration = StreamSessionConfiguration.default
    configuration.proxy = .environment                                   // the default
    configuration.proxy = .direct                                        // never a proxy
    configuration.proxy = .httpConnect(host: "proxy.example", port: 3128,
                                       credentials: ProxyCredentials(username: "me", password: "secret"))
    configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)         // names resolved by the proxy
    configuration.proxy = try ProxyConfiguration(url: "socks5://me:secret@127.0.0.1:1080")
    let session = StreamSession(configuration: configuration)
    // end sample
    _ = session
}

func routesArticle(task: StreamTask) async {
    // sample: Sources/StreamTaskCore/Docs.docc/Routes.md 1
    for await event in task.events {
        switch event {
        case .betterRouteDiscovered:
            await reconnectWhenIdle()  // the old connection still works meanwhile
        case .viabilityChanged(isViable: false):
            showOffline()  // it may come back: wait, or give up after a while
        case .viabilityChanged(isViable: true):
            showOnline()
        default:
            break
        }
    }
    // end sample
}

func securingConnectionsArticle(task: StreamTask) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/SecuringConnections.md 1
    // Client side of SMTP's STARTTLS.
    _ = try await task.readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 512, timeout: 10) // 220 greeting
    try await task.write(Data("STARTTLS\r\n".utf8), timeout: 10)
    _ = try await task.readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 512, timeout: 10) // 220 go ahead
    try await task.startTLS(timeout: 10)
    // From here on, reads and writes are protected.
    // end sample
}

func umbrellaLandingPage() async throws {
    // sample: Sources/StreamTaskKit/Docs.docc/StreamTaskKit.md 1
    let session = StreamSession()
    let task = session.streamTask(withHostName: "127.0.0.1", port: 7007)
    task.resume()
    try await task.write(Data("hello\n".utf8), timeout: 5)
    let line = try await task.readData(upToAndIncluding: Data("\n".utf8), maxLength: 4096, timeout: 5)
    // end sample
    _ = line
}

func httpLandingPage() async throws {
    // sample: Sources/StreamTaskHTTP/Docs.docc/StreamTaskHTTP.md 1
    let session = StreamSession()
    var request = URLRequest(url: URL(string: "http://127.0.0.1:8080/chat")!)
    request.setValue("websocket", forHTTPHeaderField: "Upgrade")
    let dataTask = session.dataTask(with: request)
    let response = try await dataTask.receiveResponse()
    let stream = try await dataTask.becomeStream()  // the same connection, as a stream task
    // end sample
    _ = (response, stream)
}

func transportSecurityInCode(configuration: StreamSessionConfiguration) {
    // sample: Sources/StreamTaskCore/Docs.docc/TransportSecurity.md 1
    var security = StreamTransportSecurity()
    security.exceptionDomains["legacy.example.com"] = .init(minimumTLSVersion: .tls1_0)
    security.exceptionDomains["10.0.0.0/8"] = .init(allowsInsecureHTTPLoads: true)
    configuration.transportSecurity = security
    // end sample
}

func transportSecurityFromAFile(configuration: StreamSessionConfiguration, url: URL) throws {
    // sample: Sources/StreamTaskCore/Docs.docc/TransportSecurity.md 2
    configuration.transportSecurity = try StreamTransportSecurity(contentsOf: url)
    // end sample
}
