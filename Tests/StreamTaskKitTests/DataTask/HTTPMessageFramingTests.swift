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
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import StreamTaskCore
@testable import StreamTaskHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a data task frames its request and reads the response's header fields, as real servers
/// and proxies need them (nginx, Apache and lighttpd were checked by hand).
@Suite struct HTTPMessageFramingTests {
    /// The request head as SwiftNIO's encoder puts it on the wire.
    private func wire(_ request: URLRequest) throws -> String {
        let built = try HTTPRequestBuilder(request: request, host: "127.0.0.1", port: 8080)
        let channel = EmbeddedChannel(handler: HTTPRequestEncoder())
        try channel.writeOutbound(HTTPClientRequestPart.head(built.head))
        var text = ""
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: bytes) }
        _ = try channel.finish()
        return text.lowercased()
    }

    @Test(arguments: ["POST", "PUT", "PATCH"])
    func anEmptyBodyIsSentWithContentLengthZeroNotChunked(method: String) throws {
        let head = try wire(DataTaskTesting.request("http://127.0.0.1:8080/empty", method: method))
        #expect(head.contains("\r\ncontent-length: 0\r\n"), "\(head)")
        #expect(!head.contains("transfer-encoding"), "RFC 9112, section 6.1: an HTTP/1.0 server need not know chunked")
    }

    @Test func aGetWithoutABodySaysNothingOfOne() throws {
        let head = try wire(DataTaskTesting.request("http://127.0.0.1:8080/"))
        #expect(!head.contains("content-length"), "\(head)")
        #expect(!head.contains("transfer-encoding"), "\(head)")
        let post = try wire(DataTaskTesting.request("http://127.0.0.1:8080/", method: "POST", body: "12345"))
        #expect(post.contains("\r\ncontent-length: 5\r\n"), "\(post)")
    }

    @Test func repeatedFieldsAreJoinedWhateverTheCaseOfTheirNames() throws {
        // As nginx passes them on from a backend, next to one of its own.
        let head = HTTPResponseHead(
            version: .http1_1, status: .ok,
            headers: HTTPHeaders([
                ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("SET-COOKIE", "c=3"), ("X-Other", "x"),
            ]))
        let response = HTTPExchangeHandler.response(head, url: try #require(URL(string: "http://127.0.0.1/")))
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2, c=3")
        #expect(response.value(forHTTPHeaderField: "x-other") == "x")
        #expect(response.allHeaderFields.count == 2, "\(response.allHeaderFields)")
    }
}
