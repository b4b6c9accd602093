//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as an app on macOS would be with Foundation's stream tasks: it joins an IRC
// channel, says one line, and leaves. It is kept here as Darwin source; the tests port it
// with scripts/port-from-darwin.sh and compare the result with Examples/Ported/irc-bot, which
// is built and run against ngIRCd.
//
//   irc-bot HOST PORT NICK CHANNEL MESSAGE

import Foundation

final class IRCBot: NSObject, URLSessionStreamDelegate {
    let nick: String
    let channel: String
    let message: String
    var pending = Data()
    var task: URLSessionStreamTask?

    init(nick: String, channel: String, message: String) {
        self.nick = nick
        self.channel = channel
        self.message = message
    }

    func start(host: String, port: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        configuration.connectionProxyDictionary = [:]  // never through a proxy
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        let task = session.streamTask(withHostName: host, port: port)
        task.taskDescription = "IRC connection of \(nick)"
        task.priority = URLSessionTask.highPriority
        self.task = task
        task.resume()
        send("NICK \(nick)")
        send("USER \(nick) 0 * :Darwin code on Linux")
        readMore()
    }

    func send(_ line: String) {
        task?.write(Data("\(line)\r\n".utf8), timeout: 10) { error in
            if let error = error {
                print("write failed: \(error.localizedDescription)")
            }
        }
    }

    func readMore() {
        task?.readData(ofMinLength: 1, maxLength: 4096, timeout: 30) { data, atEOF, error in
            if let error = error as? URLError {
                if error.code == .timedOut {
                    print("the server said nothing for 30 s")
                }
                return  // the task completes; urlSession(_:task:didCompleteWithError:) reports it
            }
            if let data = data {
                self.pending.append(data)
                self.handleLines()
            }
            if !atEOF {
                self.readMore()
            }
        }
    }

    func handleLines() {
        while let end = pending.range(of: Data("\r\n".utf8)) {
            let line = String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self)
            pending.removeSubrange(pending.startIndex..<end.upperBound)
            handle(line)
        }
    }

    func handle(_ line: String) {
        let words = line.split(separator: " ", maxSplits: 2).map(String.init)
        if words.first == "PING" {
            send("PONG \(words.dropFirst().joined(separator: " "))")
        } else if words.count > 1 && words[1] == "001" {
            print("registered as \(nick)")
            send("JOIN \(channel)")
        } else if words.count > 2 && words[1] == "JOIN" && line.hasPrefix(":\(nick)!") {
            print("joined \(channel)")
            send("PRIVMSG \(channel) :\(message)")
            send("QUIT :done")
        }
    }

    func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask) {
        print("the server closed the connection")
        streamTask.closeWrite()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        print("metrics collected")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        print("\(task.taskDescription ?? "task") completed, state \(task.state.rawValue)")
        guard let error = error else {
            exit(0)
        }
        let nsError = error as NSError
        if let urlError = error as? URLError, urlError.code == .cannotConnectToHost {
            print("cannot connect: \(nsError.domain) \(nsError.code)")
            exit(2)
        }
        print("failed: \(nsError.domain) \(nsError.code) \(error.localizedDescription)")
        exit(nsError.code == NSURLErrorNetworkConnectionLost ? 0 : 1)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let port = Int(arguments[2]) else {
    print("usage: irc-bot HOST PORT NICK CHANNEL MESSAGE")
    exit(64)
}
let bot = IRCBot(nick: arguments[3], channel: arguments[4], message: arguments[5])
bot.start(host: arguments[1], port: port)
dispatchMain()
