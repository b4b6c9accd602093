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
import NIOHTTP1
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamDataTask: StreamTaskAttachment {
    /// Puts the HTTP exchange on the carrier's connected channel, in front of where the task's
    /// own handler goes: TLS first for `https`, then the head gate, SwiftNIO's request encoder
    /// and response decoder, and the exchange handler, which sends the request at once.
    package func install(on channel: any Channel, driver: StreamTaskDriver) throws {
        let request = try HTTPRequestBuilder(
            request: request, host: driver.host, port: driver.port,
            additionalHeaders: driver.configuration.httpAdditionalHeaders?.entries)
        let pipeline = channel.pipeline.syncOperations
        if request.usesTLS {
            // A data task speaks HTTP/1.1 and nothing else, so it offers only that in ALPN,
            // whatever the session's configuration lists: offered `h2`, a server would pick it
            // and speak a protocol the task cannot (RFC 7301, section 3.2).
            var tlsConfiguration = driver.configuration.tls
            tlsConfiguration.applicationProtocols = ["http/1.1"]
            // A transition no operation waits for: the handshake's outcome is recorded in the
            // metrics, and its failure described as TLS's. Not `isActive`: the peer's
            // close_notify ends the stream here, after the bytes the head gate holds.
            // The server trust and client certificate questions go to this data task's delegate.
            let (ssl, observer) = try driver.prepareTLS(
                role: .client(tlsConfiguration), peerName: driver.host, transition: carrier.makeOperationID(),
                isActive: false, reportedAs: self)
            try pipeline.addHandler(ReadPassCloseGuard())
            try pipeline.addHandler(observer)
            try pipeline.addHandler(ssl)
        }
        let gate = HTTPResponseHeadGate()
        let exchange = HTTPExchangeHandler(
            request: request.head,
            body: request.body,
            url: request.url,
            gate: gate,
            dataTask: self,
            idleTimeout: driver.configuration.timeoutIntervalForRequest
        )
        try pipeline.addHandler(gate)
        try pipeline.addHandler(HTTPRequestEncoder())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
        try pipeline.addHandler(exchange)
        self.exchange = exchange
    }

    /// The task was suspended or resumed: the exchange's idle timer stops or starts again.
    package func suspensionChanged() {
        exchange?.suspensionChanged()
    }

    /// The exchange became a stream: the carrier is the caller's task from now on. On the loop.
    func carrierBecameStream(request: URLRequest, response: HTTPURLResponse) {
        carrier.driver.detach(self)
        carrier.withShared { shared in
            shared.record = DataTaskRecord(request: request, response: response)
            shared.delegateMuted = false
        }
    }

    /// The exchange ended without the carrier completing (the body was read): let go of it.
    func detachFromCarrier() {
        let driver = carrier.driver
        driver.onLoop { driver.detach(self) }
    }
}
