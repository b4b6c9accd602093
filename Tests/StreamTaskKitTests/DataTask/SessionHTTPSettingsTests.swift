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

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionConfiguration`'s HTTP settings: Apple's defaults, kept as set and copied by the
/// session, and `httpAdditionalHeaders` sent with every data task's request.
@Suite(.timeLimit(.minutes(1))) struct SessionHTTPSettingsTests {
    @Test func applesDefaultsAndWhatIsSetIsKeptAndCopied() throws {
        let configuration = StreamSessionConfiguration.default
        #expect(configuration.requestCachePolicy == .useProtocolCachePolicy)
        #expect(configuration.networkServiceType == .default)
        #expect(configuration.httpCookieAcceptPolicy == .onlyFromMainDocumentDomain)
        #expect(configuration.httpAdditionalHeaders == nil)
        #expect(configuration.httpCookieStorage == nil)
        #expect(configuration.urlCredentialStorage == nil)
        #expect(configuration.urlCache == nil)
        #expect(configuration.protocolClasses == nil)

        let cache = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.networkServiceType = .background
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = cache
        configuration.httpAdditionalHeaders = ["User-Agent": "ported/1.0"]
        let copied = StreamSession(configuration: configuration).configuration
        #expect(copied.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(copied.networkServiceType == .background)
        #expect(copied.httpCookieAcceptPolicy == .never)
        #expect(copied.urlCache === cache)
        #expect(copied.httpAdditionalHeaders?["User-Agent"] as? String == "ported/1.0")

        let background = StreamSessionConfiguration.background(withIdentifier: "com.example.sync")
        #expect(background.identifier == "com.example.sync")
        #expect(StreamSessionConfiguration.default.identifier == nil)
    }

    @Test func additionalHeadersGoWithEveryRequestAndTheRequestsOwnWin() async throws {
        try await DataTaskTesting.withPeer("http_peer.py", mode: "echo-head") { server in
            let configuration = StreamSession.Configuration(timeoutIntervalForRequest: 20, proxy: .direct)
            configuration.transportSecurity = .insecureLoopback
            configuration.httpAdditionalHeaders = [
                "User-Agent": "ported/1.0", "Accept": "text/plain", "X-Count": 3,
                "Host": "elsewhere.example", "Connection": "close-please",
            ]
            var request = try DataTaskTesting.request("http://127.0.0.1:\(server.port)/h")
            request.setValue("application/json", forHTTPHeaderField: "accept")
            let dataTask = StreamSession(configuration: configuration).dataTask(with: request)
            #expect(dataTask.currentRequest == request)
            #expect(try await dataTask.receiveResponse().statusCode == 200)
            let head = String(decoding: try await dataTask.bodyData(), as: UTF8.self)
                .split(separator: "\n").map(String.init)
            #expect(head.first == "GET /h HTTP/1.1")
            let fields = head.dropFirst().map { line -> (name: String, value: String) in
                let parts = line.split(separator: ":", maxSplits: 1).map(String.init) + [""]
                return (parts[0].lowercased(), parts[1].trimmingCharacters(in: .whitespaces))
            }
            func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }
            #expect(values("user-agent") == ["ported/1.0"])
            #expect(values("accept") == ["application/json"])
            #expect(values("x-count") == ["3"])
            #expect(values("host") == ["127.0.0.1:\(server.port)"])
            #expect(!values("connection").contains("close-please"))
        }
    }
}
