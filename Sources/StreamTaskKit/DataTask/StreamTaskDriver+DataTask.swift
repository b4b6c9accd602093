import Foundation
import NIOCore
import NIOHTTP1

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamTaskDriver {
    /// Puts a data task's HTTP exchange on a connected channel, in front of where the task's
    /// own handler goes: TLS first for `https`, then the head gate, SwiftNIO's request encoder
    /// and response decoder, and the exchange handler, which sends the request at once.
    func installHTTPExchange(for dataTask: StreamDataTask, on channel: any Channel) throws {
        let request = try HTTPRequestBuilder(request: dataTask.originalRequest, host: host, port: port)
        let pipeline = channel.pipeline.syncOperations
        if request.usesTLS {
            // A data task speaks HTTP/1.1 and nothing else, so it offers only that in ALPN,
            // whatever the session's configuration lists: offered `h2`, a server would pick it
            // and speak a protocol the task cannot (RFC 7301, section 3.2).
            var tlsConfiguration = configuration.tls
            tlsConfiguration.applicationProtocols = ["http/1.1"]
            // A transition no operation waits for: the handshake's outcome is recorded in the
            // metrics, and its failure described as TLS's. Not `isActive`: the peer's
            // close_notify ends the stream here, after the bytes the head gate holds.
            let (ssl, observer) = try prepareTLS(
                role: .client(tlsConfiguration), peerName: host, transition: owner!.makeOperationID(), isActive: false)
            try pipeline.addHandler(observer)
            try pipeline.addHandler(ssl)
        }
        let gate = HTTPResponseHeadGate()
        let exchange = HTTPExchangeHandler(
            request: request.head,
            body: request.body,
            url: request.url,
            gate: gate,
            dataTask: dataTask
        )
        try pipeline.addHandler(gate)
        try pipeline.addHandler(HTTPRequestEncoder())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
        try pipeline.addHandler(exchange)
        dataTask.exchange = exchange
    }

    /// The data task this task carried became a stream: the task is the caller's from now on.
    func becameStream(request: URLRequest, response: HTTPURLResponse) {
        dataTask = nil
        owner?.withShared { shared in
            shared.originalRequest = request
            shared.response = response
            shared.delegateMuted = false
        }
    }
}
