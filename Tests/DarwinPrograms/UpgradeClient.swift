//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS app would be with Foundation's data and stream tasks:
// it asks an HTTP server to switch protocols, turns the data task into a stream task, holds
// that task until it is ready for it, then hands the connection to stream-based code as an
// InputStream and OutputStream. It is kept here as Darwin source; the tests port it with
// scripts/port-from-darwin.sh, compare the result with Examples/Ported/upgrade-client, and run
// that against a small HTTP server in Python.
//
//   upgrade-client URL PROTOCOL LINE

import Foundation

final class UpgradeClient: NSObject, URLSessionDataDelegate, URLSessionStreamDelegate {
    let line: String
    var session: URLSession!
    var resumed = false

    init(line: String) {
        self.line = line
    }

    func start(url: URL, upgrade: String) {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: OperationQueue.main)
        var request = URLRequest(url: url)
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue(upgrade, forHTTPHeaderField: "Upgrade")
        let task = session.dataTask(with: request)
        task.taskDescription = "upgrade request"
        task.resume()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse, http.statusCode == 101 else {
            print("the server did not switch protocols: \((response as? HTTPURLResponse)?.statusCode ?? 0)")
            completionHandler(.cancel)
            return
        }
        print("switching protocols to \(http.allHeaderFields["Upgrade"] ?? "?")")
        completionHandler(.becomeStream)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome streamTask: URLSessionStreamTask) {
        print("\(dataTask.taskDescription ?? "data task") became a stream task")
        streamTask.taskDescription = "upgraded connection"
        // Not ready for the new protocol yet: what is queued meanwhile waits for resume().
        streamTask.suspend()
        streamTask.readData(ofMinLength: 1, maxLength: 1024, timeout: 10) { data, atEOF, error in
            if let error = error {
                print("reading the first bytes failed: \((error as NSError).code)")
                exit(1)
            }
            let text = String(decoding: data ?? Data(), as: UTF8.self).trimmingCharacters(in: .newlines)
            print("first bytes \(self.resumed ? "after" : "before") resume: \(text)")
            streamTask.captureStreams()
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) {
            self.resumed = true
            print("resuming")
            streamTask.resume()
        }
    }

    // MARK: URLSessionStreamDelegate

    func urlSession(
        _ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {
        print("captured the streams of the \(streamTask.taskDescription ?? "task")")
        // The streams block; this tool has nothing else to do meanwhile, so it uses them right here.
        inputStream.open()
        outputStream.open()
        let bytes = Array("\(line)\n".utf8)
        let written = outputStream.write(bytes, maxLength: bytes.count)
        var echo = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !echo.contains(UInt8(ascii: "\n")) {
            let count = inputStream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            echo.append(buffer, count: count)
        }
        outputStream.close()
        inputStream.close()
        let text = String(decoding: echo, as: UTF8.self).trimmingCharacters(in: .newlines)
        print("wrote \(written) bytes to the output stream; the server echoed: \(text)")
        session.finishTasksAndInvalidate()
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let error = error else {
            print("\(task.taskDescription ?? "task") completed")
            return
        }
        let nsError = error as NSError
        print("\(task.taskDescription ?? "task") failed: \(nsError.domain) \(nsError.code)")
        exit(1)
    }

    // MARK: URLSessionDelegate

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: Error?) {
        print("session invalidated")
        exit(0)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[1]) else {
    print("usage: upgrade-client URL PROTOCOL LINE")
    exit(64)
}
let client = UpgradeClient(line: arguments[3])
client.start(url: url, upgrade: arguments[2])
dispatchMain()
