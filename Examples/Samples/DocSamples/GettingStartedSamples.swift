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

// Sources/StreamTaskKit/Docs.docc/GettingStarted.md, one function a step.

func gettingStartedSession() {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 1
    let configuration = StreamSessionConfiguration.default
    configuration.timeoutIntervalForRequest = 10  // name resolution plus connecting, in seconds
    configuration.timeoutIntervalForRead = 30     // for reads that are not given a timeout
    let session = StreamSession(configuration: configuration)
    // end sample
    _ = session
}

func gettingStartedTask(session: StreamSession) {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 2
    let task = session.streamTask(withHostName: "example.com", port: 7)
    task.resume()
    // end sample
}

func gettingStartedRead(task: StreamTask) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 3
    let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 4096, timeout: 5)
    // end sample
    _ = (data, atEOF)
}

func gettingStartedLines(task: StreamTask) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 4
    let crlf = Data("\r\n".utf8)
    while let line = try await task.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 0) {
        handle(line)  // ends with "\r\n", except a last line cut short by the end of the stream
    }
    // nil: the stream ended and nothing is left.
    // end sample
}

func gettingStartedWrite(task: StreamTask) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 5
    try await task.write(Data("PING\r\n".utf8), timeout: 5)
    // end sample
}

func gettingStartedHalfClose(task: StreamTask, crlf: Data) async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 6
    task.closeWrite()  // after every earlier write: the peer reads end of stream
    while let line = try await task.readData(upToAndIncluding: crlf, maxLength: 512, timeout: 5) {
        handle(line)   // reading goes on until the peer closes its side
    }
    // end sample
}

func gettingStartedEvents(task: StreamTask) async {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 7
    for await event in task.events {
        switch event {
        case .readClosed: print("no more bytes will arrive")
        case .writeClosed: print("end of stream sent")
        case .metricsCollected(let metrics): print("\(metrics.countOfBytesReceived) bytes received")
        case .completed(let error): print("completed", error.map { "\($0)" } ?? "in order")
        default: break  // route and viability events: see <doc:Routes>
        }
    }
    // end sample
}

func gettingStartedMetrics(task: StreamTask) {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 8
    let metrics = task.metrics
    if let start = metrics.connectStartDate, let end = metrics.connectEndDate {
        print("connected to \(metrics.remoteAddress ?? "?") in \(end.timeIntervalSince(start)) s")
    }
    // end sample
}

func gettingStartedListener() async throws {
    // sample: Sources/StreamTaskCore/Docs.docc/GettingStarted.md 9
    let listener = StreamListener(host: "127.0.0.1", port: 0)  // 0: any free port
    try await listener.start()                                  // throws bindFailed
    print("listening on port \(listener.port!)")

    await withDiscardingTaskGroup { group in
        for await connection in listener.connections {          // ends at shutdown
            group.addTask {
                do {
                    while let line = try await connection.readData(
                        upToAndIncluding: Data("\n".utf8), maxLength: 4096, timeout: 0)
                    {
                        try await connection.write(line, timeout: 0)
                    }
                    connection.closeWrite()
                } catch {
                    connection.cancel()
                }
            }
        }
    }
    // end sample
}
