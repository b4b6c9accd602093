//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskKit

@testable import StreamTaskDNSSD

/// A listener on 127.0.0.1 advertised over DNS-SD: each connection gets its first line back
/// as `echo: <line>`, then the end of the stream.
struct AdvertisedEchoServer {
    let listener: StreamListener
    let registration: DNSSDRegistration
    let serving: Task<Void, any Error>

    static func start(
        name: String, type: String, txtRecord: DNSSDTXTRecord = [:]
    ) async throws
        -> AdvertisedEchoServer
    {
        let listener = StreamListener(host: "127.0.0.1", port: 0)
        try await listener.start()
        let registration = try await listener.advertise(name: name, type: type, txtRecord: txtRecord)
        let serving = Task {
            for await connection in listener.connections {
                let line = try await connection.readData(upToAndIncluding: Data("\n".utf8), maxLength: 100, timeout: 10)
                try await connection.write(Data("echo: ".utf8) + (line ?? Data()), timeout: 10)
                connection.closeWrite()
            }
        }
        return AdvertisedEchoServer(listener: listener, registration: registration, serving: serving)
    }

    func stop() async {
        registration.cancel()
        await listener.shutdown(gracePeriod: 0)
        _ = await serving.result
    }
}

/// Everything `task` receives until the end of the stream, as text.
func readToEnd(_ task: StreamTask) async throws -> String {
    var reply = Data()
    while true {
        let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 100, timeout: 10)
        reply += data ?? Data()
        if atEOF { break }
    }
    return String(decoding: reply, as: UTF8.self)
}
