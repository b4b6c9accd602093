//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskHTTP
import Testing

@testable import StreamTaskCore

/// The Apple-shaped metrics a task delegate receives, over real loopback connections.
@Suite(.timeLimit(.minutes(1))) struct StreamSessionTaskMetricsTests {
    @Test func aPlainTaskDeliversOneTransactionWithOrderedDatesAddressesAndCounts() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let delegate = MetricsDelegate()
        let client = StreamSession(delegate: delegate).streamTask(withHostName: "localhost", port: server.port)
        client.resume()
        let peer = try await server.accept(&accepted)
        try await client.write("12345")
        #expect(try await peer.readText(count: 5) == "12345")
        try await peer.write("abc")
        #expect(try await client.readText(count: 3) == "abc")
        client.closeWrite()
        peer.closeWrite()
        #expect(try await client.readToEnd() == "")

        let metrics = try await delegate.delivered()
        #expect(metrics.redirectCount == 0)
        let transaction = try #require(metrics.transactionMetrics.first)
        #expect(metrics.transactionMetrics.count == 1)
        let dates = transaction.connectionDates()
        #expect(dates.count == 9, "\(dates)")
        #expect(dates == dates.sorted(), "\(dates)")
        #expect(metrics.taskInterval.start == transaction.fetchStartDate)
        #expect(metrics.taskInterval.end == transaction.responseEndDate)
        #expect(transaction.secureConnectionStartDate == nil)
        #expect(transaction.secureConnectionEndDate == nil)
        #expect(transaction.negotiatedTLSProtocolVersion == nil)
        #expect(transaction.negotiatedTLSCipherSuite == nil)
        #expect(transaction.remoteAddress == "127.0.0.1")
        #expect(transaction.remotePort == server.port)
        #expect(transaction.localAddress == "127.0.0.1")
        #expect(transaction.localPort == peer.port)
        #expect(transaction.countOfRequestBodyBytesSent == 5)
        #expect(transaction.countOfRequestBodyBytesBeforeEncoding == 5)
        #expect(transaction.countOfResponseBodyBytesReceived == 3)
        #expect(transaction.countOfResponseBodyBytesAfterDecoding == 3)
        #expect(transaction.countOfRequestHeaderBytesSent == 0)
        #expect(transaction.countOfResponseHeaderBytesReceived == 0)
        #expect(transaction.isProxyConnection == false)
        #expect(transaction.isReusedConnection == false)
        #expect(transaction.networkProtocolName == nil)
        #expect(transaction.resourceFetchType == .networkLoad)
        #expect(transaction.domainResolutionProtocol == .unknown)
        await server.stop()
    }

    /// TLS 1.3 by STARTTLS against the library's own server.
    @Test func aTLS13TaskReportsAppleVersionAndCipherSuite() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let delegate = MetricsDelegate()
        let configuration = StreamSession.Configuration(tls: try certificates.clientConfiguration())
        let client = StreamSession(configuration: configuration, delegate: delegate).loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        try await client.write("plain\n")
        #expect(try await peer.readText(count: 6) == "plain\n")
        try await client.startTLS(with: peer, serverConfiguration: try certificates.serverConfiguration())
        try await client.write("secret")
        #expect(try await peer.readText(count: 6) == "secret")
        client.cancel()

        let metrics = try await delegate.delivered()
        let transaction = try #require(metrics.transactionMetrics.first)
        #expect(metrics.transactionMetrics.count == 1)
        let dates = transaction.connectionDates()
        #expect(dates.count == 9, "\(dates)")
        #expect(dates == dates.sorted(), "\(dates)")
        let secureStart = try #require(transaction.secureConnectionStartDate)
        let secureEnd = try #require(transaction.secureConnectionEndDate)
        // STARTTLS: the handshake happens inside the exchange, after the connection opened.
        #expect(try #require(transaction.requestStartDate) <= secureStart)
        #expect(secureStart <= secureEnd)
        #expect(secureEnd <= (try #require(transaction.requestEndDate)))
        #expect(transaction.negotiatedTLSProtocolVersion == .TLSv13)
        let suite = try #require(transaction.negotiatedTLSCipherSuite)
        #expect([.AES_128_GCM_SHA256, .AES_256_GCM_SHA384, .CHACHA20_POLY1305_SHA256].contains(suite))
        #expect(ServerHelloParser.name(of: suite.rawValue) == client.metrics.negotiatedCipherSuite)
        // Application bytes, not TLS records.
        #expect(transaction.countOfRequestBodyBytesSent == 12)
        #expect(transaction.remotePort == server.port)
        #expect(transaction.localPort == peer.port)
        await server.stop()
    }

    /// TLS 1.2 with one suite forced by `openssl s_server`.
    @Test func aTLS12TaskReportsTheSuiteTheServerChose() async throws {
        let certificates = try await TestCertificates.get()
        let server = try await OpenSSLServer.start(
            certificate: certificates.serverPEM, key: certificates.serverKey,
            "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256")
        let delegate = MetricsDelegate()
        let configuration = StreamSession.Configuration(tls: try certificates.clientConfiguration())
        let client = StreamSession(configuration: configuration, delegate: delegate).loopbackTask(port: server.port)
        try await client.startTLS(timeout: 10)
        try await client.write("hello\n")
        #expect(
            try await client.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                == Data("olleh\n".utf8))
        client.cancel()

        let transaction = try #require(try await delegate.delivered().transactionMetrics.first)
        #expect(transaction.negotiatedTLSProtocolVersion == .TLSv12)
        #expect(transaction.negotiatedTLSCipherSuite == .ECDHE_RSA_WITH_AES_128_GCM_SHA256)
        #expect(transaction.countOfRequestBodyBytesSent == 6)
        #expect(transaction.countOfResponseBodyBytesReceived == 6)
        #expect(transaction.remotePort == server.port)
        let dates = transaction.connectionDates()
        #expect(dates.count == 9, "\(dates)")
        #expect(dates == dates.sorted(), "\(dates)")
    }

    /// A connection a listener accepted had no lookup and no connect phase: it opened when the
    /// task was made.
    @Test func anAcceptedTaskOpensWhenItWasMade() async throws {
        let delegate = MetricsDelegate()
        let server = try await LoopbackServer.start(session: StreamSession(delegate: delegate))
        var accepted = server.listener.connections.makeAsyncIterator()
        let client = StreamSession().loopbackTask(port: server.port)
        let peer = try await server.accept(&accepted)
        try await client.write("ab")
        #expect(try await peer.readText(count: 2) == "ab")
        peer.cancel()

        let transaction = try #require(try await delegate.delivered().transactionMetrics.first)
        #expect(transaction.domainLookupStartDate == nil)
        #expect(transaction.connectStartDate == nil)
        #expect(transaction.requestStartDate == transaction.fetchStartDate)
        #expect(transaction.responseStartDate == transaction.fetchStartDate)
        #expect(try #require(transaction.responseEndDate) >= (try #require(transaction.fetchStartDate)))
        #expect(transaction.countOfResponseBodyBytesReceived == 2)
        #expect(transaction.remotePort == client.metrics.localPort)
        client.cancel()
        await server.stop()
    }

    @Test func aTaskCancelledBeforeResumeHasNoTransaction() async throws {
        let delegate = MetricsDelegate()
        let task = StreamSession(delegate: delegate).streamTask(withHostName: "127.0.0.1", port: 9)
        task.cancel()
        let metrics = try await delegate.delivered()
        #expect(metrics.transactionMetrics.isEmpty)
        #expect(metrics.redirectCount == 0)
        #expect(metrics.taskInterval.duration >= 0)
    }
}

/// A task delegate that keeps the metrics it is given.
final class MetricsDelegate: StreamSessionTaskDelegate {
    private let received = Recorder<StreamSessionTaskMetrics>()

    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics
    ) {
        received.append(metrics)
    }

    /// The metrics delivered, once the delegate has them; fails unless exactly one came.
    func delivered() async throws -> StreamSessionTaskMetrics {
        #expect(await eventually { !received.values.isEmpty })
        #expect(received.values.count == 1)
        return try #require(received.values.first)
    }
}

extension StreamSessionTaskTransactionMetrics {
    /// The dates of the connection's phases that happened, in the order Apple's happen.
    func connectionDates() -> [Date] {
        let dates = [
            fetchStartDate, domainLookupStartDate, domainLookupEndDate, connectStartDate, connectEndDate,
            requestStartDate, responseStartDate, requestEndDate, responseEndDate,
        ]
        return dates.compactMap { $0 }
    }
}
