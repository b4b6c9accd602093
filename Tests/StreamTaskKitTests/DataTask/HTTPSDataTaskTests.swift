//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import StreamTaskCore
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `https` data tasks against our own TLS listener: TLS from the first byte, and the bytes
/// after a head delivered through it.
@Suite(.timeLimit(.minutes(1))) struct HTTPSDataTaskTests {
    /// A TLS listener, a session trusting the test CA, and a task accepted for a data task.
    private func start(
        _ path: String, closeNotifyTimeout: TimeInterval? = nil, applicationProtocols: [String] = []
    ) async throws -> (StreamListener, StreamDataTask, StreamTask) {
        let certificates = try await TestCertificates.get()
        var serverTLS = try certificates.serverConfiguration()
        serverTLS.applicationProtocols = applicationProtocols
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: serverTLS)
        try await listener.start()
        var accepted = listener.connections.makeAsyncIterator()
        var tls = try certificates.clientConfiguration()
        tls.applicationProtocols = applicationProtocols
        if let closeNotifyTimeout { tls.closeNotifyTimeout = closeNotifyTimeout }
        let configuration = StreamSession.Configuration(timeoutIntervalForRequest: 20, tls: tls, proxy: .direct)
        let port = try #require(listener.port)
        let dataTask = StreamSession(configuration: configuration)
            .dataTask(with: try DataTaskTesting.request("https://127.0.0.1:\(port)\(path)"))
        dataTask.resume()
        let peer = try #require(await accepted.next())
        #expect(try await peer.readLine() == "GET \(path) HTTP/1.1\r\n")
        while try await peer.readLine() != "\r\n" {}
        return (listener, dataTask, peer)
    }

    @Test func aBodyOverTLS() async throws {
        let (listener, dataTask, peer) = try await start("/secure")
        try await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nover TLS, ok")
        #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "over TLS, ok")
        #expect(dataTask.carrier.metrics.negotiatedTLSVersion == "TLS 1.3")
        peer.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    /// Once the body has ended the connection closes, at once when the server answers the
    /// close_notify and closes too (as nginx does). It used to wait out NIOSSL's close timeout
    /// (5 s), holding the host's connection slot; here that timeout is ten minutes, so such a
    /// wait runs into the suite's time limit.
    @Test func theConnectionClosesWhenTheBodyEndsWithoutWaitingOutTheTimeout() async throws {
        let (listener, dataTask, peer) = try await start("/short", closeNotifyTimeout: 600)
        try await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "ok")
        peer.cancel()  // its close_notify, then the socket closes
        #expect(
            await eventually { dataTask.carrier.state == .completed },
            "the connection closed (it used to wait 600 s here)")
        await listener.shutdown(gracePeriod: 0)
    }

    /// A server that keeps the connection alive (h2o does) neither answers the close_notify
    /// nor closes: the connection still closes once the body has ended, after a close_notify
    /// that ends the server's side in order.
    @Test func theConnectionClosesWhenTheBodyEndsThoughTheServerKeepsItOpen() async throws {
        let (listener, dataTask, peer) = try await start("/kept-alive", closeNotifyTimeout: 600)
        try await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "ok")
        #expect(
            await eventually { dataTask.carrier.state == .completed },
            "the connection closed (it used to wait 600 s here)")
        #expect(try await peer.readToEnd() == "", "the close_notify came before the end: no truncation")
        #expect(await dataTask.carrier.waitUntilCompleted() == nil, "closing beneath TLS on purpose is no error")
        peer.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    /// A session configured to offer `h2` (for its stream tasks, say) does not make its data
    /// tasks offer it: they speak HTTP/1.1 only, and a server that prefers h2 would pick it.
    @Test func aDataTaskOffersOnlyHTTP11WhateverTheSessionOffers() async throws {
        let (listener, dataTask, peer) = try await start("/alpn", applicationProtocols: ["h2", "http/1.1"])
        try await peer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "ok")
        #expect(dataTask.carrier.metrics.negotiatedApplicationProtocol == "http/1.1")
        #expect(peer.metrics.negotiatedApplicationProtocol == "http/1.1")
        peer.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    /// A body framed by the end of the connection is complete only if TLS ended in order: cut
    /// without close_notify, it may be missing its end (RFC 8446, section 6.1).
    @Test(arguments: [("https-close-delimited-truncated", true), ("https-close-delimited", false)])
    func aBodyReadToTheEndOfTheConnectionNeedsTheServersCloseNotify(mode: String, truncated: Bool) async throws {
        let certificates = try await TestCertificates.get()
        let peer = try await PythonPeer.start(
            script: "http_peer.py", mode: mode, arguments: [certificates.serverPEM, certificates.serverKey])
        let configuration = StreamSession.Configuration(tls: try certificates.clientConfiguration(), proxy: .direct)
        let dataTask = StreamSession(configuration: configuration)
            .dataTask(with: try DataTaskTesting.request("https://127.0.0.1:\(peer.port)/"))
        dataTask.resume()
        if truncated {
            await expectStreamError(.tlsTruncated) { try await dataTask.bodyData() }
            #expect(await dataTask.carrier.waitUntilCompleted()?.code == .tlsTruncated)
        } else {
            #expect(String(decoding: try await dataTask.bodyData(), as: UTF8.self) == "the first part")
        }
        _ = await peer.finish()
    }

    /// A stream made from an https data task tells a cut connection from an orderly end too.
    @Test func aStreamFromAnHTTPSDataTaskReportsATruncation() async throws {
        let certificates = try await TestCertificates.get()
        let peer = try await PythonPeer.start(
            script: "http_peer.py", mode: "https-upgrade-truncated",
            arguments: [certificates.serverPEM, certificates.serverKey])
        let configuration = StreamSession.Configuration(tls: try certificates.clientConfiguration(), proxy: .direct)
        let dataTask = StreamSession(configuration: configuration)
            .dataTask(with: try DataTaskTesting.request("https://127.0.0.1:\(peer.port)/"))
        dataTask.resume()
        let stream = try await dataTask.becomeStream()
        #expect(try await stream.readText(count: 6) == "EARLY\n")
        try await stream.write("x")  // the server closes once it has this
        await expectStreamError(.tlsTruncated) {
            try await stream.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        }
        _ = await peer.finish()
    }

    @Test func becomingAStreamOverTLSKeepsTheBytesAfterTheHead() async throws {
        let (listener, dataTask, peer) = try await start("/upgrade")
        try await peer.write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x-test\r\nConnection: Upgrade\r\n\r\nprotected early bytes\n")
        let stream = try await dataTask.becomeStream()
        #expect(try await stream.readText(count: 22) == "protected early bytes\n")
        try await stream.write("from the client\n")
        #expect(try await peer.readText(count: 16) == "from the client\n")
        #expect(stream.metrics.negotiatedTLSVersion == "TLS 1.3")
        stream.cancel()
        peer.cancel()
        await listener.shutdown(gracePeriod: 0)
    }

    @Test func anUntrustedServerFailsTheTaskAsTLS() async throws {
        let certificates = try await TestCertificates.get()
        let listener = StreamListener(host: "127.0.0.1", port: 0, tls: try certificates.serverConfiguration())
        try await listener.start()
        let port = try #require(listener.port)
        // System roots only.
        let session = StreamSession(configuration: .init(timeoutIntervalForRequest: 20, proxy: .direct))
        let dataTask = session.dataTask(with: try DataTaskTesting.request("https://127.0.0.1:\(port)/"))
        await expectStreamError(.tlsUntrustedCertificate) { try await dataTask.receiveResponse() }
        await listener.shutdown(gracePeriod: 0)
    }
}
