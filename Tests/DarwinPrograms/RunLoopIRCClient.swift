//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program in the classic Foundation streams shape: it opens a stream task to an IRC
// server, takes the task's streams with captureStreams(), and talks over them on a network
// thread of its own, which schedules both streams in its run loop, opens them and runs that run
// loop. By default the thread calls RunLoop.current.run() and nothing else, which returns once
// the streams are closed; with --turns it turns the run loop one delivery at a time,
// `while !welcomed && RunLoop.current.run(mode:before:)`, as Apple's documentation shows, then
// again until the conversation is over. It is kept here as Darwin source; the tests port it with
// scripts/port-from-darwin.sh, compare the result with Examples/Ported/runloop-irc-client, and
// run that against ngIRCd.
//
//   runloop-irc-client HOST PORT NICK CHANNEL MESSAGE [--turns]

import Foundation

final class IRCConversation: NSObject, StreamDelegate {
    let nick: String
    let channel: String
    let message: String
    var input: InputStream?
    var output: OutputStream?
    var received = Data()
    var outbox = Data()
    var welcomed = false
    var finished = false

    init(nick: String, channel: String, message: String) {
        self.nick = nick
        self.channel = channel
        self.message = message
    }

    /// On the network thread: schedules and opens the streams, then runs the thread's run loop.
    func run(byTurns: Bool) -> Int32 {
        for stream in [input, output].compactMap({ $0 }) as [Stream] {
            stream.delegate = self
            stream.schedule(in: .current, forMode: .default)
            stream.open()
        }
        send("NICK \(nick)")
        send("USER \(nick) 0 * :a run-loop thread")
        if byTurns {
            var turns = 0
            let limit = Date(timeIntervalSinceNow: 30)
            while !welcomed && RunLoop.current.run(mode: .default, before: limit) {
                turns += 1
            }
            print("welcomed: \(welcomed), after \(turns) turns of the run loop")
            guard welcomed else { return 1 }
            while !finished && RunLoop.current.run(mode: .default, before: limit) {}
            print("finished: \(finished)")
            close()
        } else {
            RunLoop.current.run()
            print("the run loop ran dry, finished: \(finished)")
        }
        return finished ? 0 : 1
    }

    func send(_ line: String) {
        outbox.append(Data("\(line)\r\n".utf8))
        flush()
    }

    func flush() {
        guard let output = output else { return }
        while !outbox.isEmpty && output.hasSpaceAvailable {
            let written = outbox.withUnsafeBytes { raw in
                output.write(raw.bindMemory(to: UInt8.self).baseAddress!, maxLength: raw.count)
            }
            guard written > 0 else { return }
            outbox.removeFirst(written)
        }
    }

    func close() {
        for stream in [input, output].compactMap({ $0 }) as [Stream] {
            stream.close()
            stream.remove(from: .current, forMode: .default)
        }
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        switch eventCode {
        case .hasSpaceAvailable:
            flush()
        case .hasBytesAvailable:
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = input?.read(&buffer, maxLength: buffer.count) ?? 0
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
                readLines()
            }
        case .endEncountered:
            print("the server closed the connection")
            close()
        case .errorOccurred:
            print("stream error: \(aStream.streamError.map { "\($0)" } ?? "unknown")")
            close()
        default:
            break
        }
    }

    func readLines() {
        while let end = received.range(of: Data("\r\n".utf8)) {
            let line = String(decoding: received[received.startIndex..<end.lowerBound], as: UTF8.self)
            received.removeSubrange(received.startIndex..<end.upperBound)
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            if words.first == "PING" {
                send("PONG \(words.dropFirst().joined(separator: " "))")
            } else if words.count > 1 && words[1] == "001" {
                print("registered as \(nick)")
                welcomed = true
                send("JOIN \(channel)")
            } else if words.count > 1 && words[1] == "366" {
                print("joined \(channel)")
                send("PRIVMSG \(channel) :\(message)")
                send("QUIT :done")
            } else if words.first == "ERROR" {
                finished = true
            }
        }
    }
}

final class Client: NSObject, URLSessionStreamDelegate {
    let conversation: IRCConversation
    let byTurns: Bool

    init(conversation: IRCConversation, byTurns: Bool) {
        self.conversation = conversation
        self.byTurns = byTurns
    }

    func start(host: String, port: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]  // never through a proxy
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let task = session.streamTask(withHostName: host, port: port)
        task.resume()
        task.captureStreams()
    }

    func urlSession(
        _ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {
        print("captured the streams")
        let conversation = self.conversation
        conversation.input = inputStream
        conversation.output = outputStream
        let byTurns = self.byTurns
        let thread = Thread {
            let status = conversation.run(byTurns: byTurns)
            exit(status)
        }
        thread.name = "network"
        thread.start()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error = error {
            print("the task failed: \((error as NSError).code)")
            exit(2)
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 6, let port = Int(arguments[2]) else {
    print("usage: runloop-irc-client HOST PORT NICK CHANNEL MESSAGE [--turns]")
    exit(64)
}
let client = Client(
    conversation: IRCConversation(nick: arguments[3], channel: arguments[4], message: arguments[5]),
    byTurns: arguments.dropFirst(6).contains("--turns"))
client.start(host: arguments[1], port: port)
dispatchMain()
