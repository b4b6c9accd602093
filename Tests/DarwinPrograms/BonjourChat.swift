//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS app would be with Bonjour and Foundation's stream
// tasks: it browses for IRC servers on the local network, connects to the one with the name
// it is given, says one line in a channel and leaves. It is kept here as Darwin source; the
// tests port it with scripts/port-from-darwin.sh, compare the result with
// Examples/Ported/bonjour-chat, and run that against chat-server advertised over DNS-SD.
//
//   bonjour-chat SERVICE-NAME NICK CHANNEL MESSAGE

import Foundation

final class BonjourChat: NSObject, NetServiceBrowserDelegate, URLSessionStreamDelegate {
    let wanted: String
    let nick: String
    let channel: String
    let message: String
    var session: URLSession!
    var task: URLSessionStreamTask?
    var pending = Data()

    init(wanted: String, nick: String, channel: String, message: String) {
        self.wanted = wanted
        self.nick = nick
        self.channel = channel
        self.message = message
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 20
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: OperationQueue.main)
    }

    func start(with browser: NetServiceBrowser) {
        browser.delegate = self
        browser.searchForServices(ofType: "_irc._tcp.", inDomain: "local.")
    }

    // MARK: NetServiceBrowserDelegate

    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        print("found \(service.name) (\(service.type)\(moreComing ? ", more coming" : ""))")
        guard service.name == wanted, task == nil else { return }
        browser.stop()
        let task = session.streamTask(with: service)
        task.taskDescription = "chat with \(service.name)"
        self.task = task
        task.resume()
        send("NICK \(nick)")
        send("USER \(nick) 0 * :Bonjour from Darwin code")
        readMore()
    }

    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        print("browsing failed: \(errorDict[NetService.errorCode] ?? -1)")
        exit(3)
    }

    // MARK: The conversation

    func send(_ line: String) {
        task?.write(Data("\(line)\r\n".utf8), timeout: 10) { error in
            if let error = error {
                print("write failed: \((error as NSError).code)")
            }
        }
    }

    func readMore() {
        task?.readData(ofMinLength: 1, maxLength: 4096, timeout: 30) { data, atEOF, error in
            if error != nil {
                return
            }
            if let data = data {
                self.pending.append(data)
                while let end = self.pending.range(of: Data("\r\n".utf8)) {
                    let line = String(decoding: self.pending[self.pending.startIndex..<end.lowerBound], as: UTF8.self)
                    self.pending.removeSubrange(self.pending.startIndex..<end.upperBound)
                    self.handle(line)
                }
            }
            if !atEOF {
                self.readMore()
            }
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
            send("QUIT :bye")
        }
    }

    // MARK: URLSessionStreamDelegate

    func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask) {
        print("the server closed the connection")
        streamTask.closeWrite()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        print("\(task.taskDescription ?? "task") completed")
        if let error = error as? URLError {
            if error.code == .cannotFindHost {
                print("\(task.taskDescription ?? "the service") could not be resolved")
            }
            print("failed: \(error.code.rawValue)")
            exit(error.code == .networkConnectionLost ? 0 : 1)
        }
        exit(0)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    print("usage: bonjour-chat SERVICE-NAME NICK CHANNEL MESSAGE")
    exit(64)
}
let browser = NetServiceBrowser()
let chat = BonjourChat(wanted: arguments[1], nick: arguments[2], channel: arguments[3], message: arguments[4])
chat.start(with: browser)
RunLoop.main.run()
