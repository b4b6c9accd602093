//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS tool would be with Bonjour: it publishes a service with
// NetService's listenForConnections option, on a port the system picks, and answers each client
// through the pair of streams the service hands over, from a StreamDelegate on the main run
// loop: every CRLF-ended line comes back as "echo: LINE", and QUIT gets "bye" and ends the
// conversation. After its last client it stops the service and exits. It is kept here as Darwin
// source; the tests port it with scripts/port-from-darwin.sh, compare the result with
// Examples/Ported/bonjour-echo-server, and run that with avahi, talking to the Bonjour streams
// client and to a plain TCP client.
//
//   bonjour-echo-server SERVICE-TYPE SERVICE-NAME CLIENTS

import Foundation
import StreamTaskKit
import StreamTaskDNSSD

/// One client's conversation, over the streams the service handed over.
final class Conversation: NSObject, StreamDelegate {
    let number: Int
    let input: InputStream
    let output: OutputStream
    let ended: (Conversation) -> Void
    var unread = Data()
    var outbox = Data()
    var closing = false
    var finished = false

    init(number: Int, input: InputStream, output: OutputStream, ended: @escaping (Conversation) -> Void) {
        self.number = number
        self.input = input
        self.output = output
        self.ended = ended
    }

    func start() {
        for stream in [input, output] as [Stream] {
            stream.delegate = self
            stream.schedule(in: .main, forMode: .default)
            stream.open()
        }
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        switch eventCode {
        case .hasBytesAvailable:
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = input.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { return }
            unread.append(contentsOf: buffer[0..<count])
            while let end = unread.range(of: Data("\r\n".utf8)) {
                let line = String(decoding: unread[unread.startIndex..<end.lowerBound], as: UTF8.self)
                unread.removeSubrange(unread.startIndex..<end.upperBound)
                answer(line)
            }
        case .hasSpaceAvailable:
            flush()
        case .endEncountered:
            print("client \(number) left")
            finish()
        case .errorOccurred:
            let error = aStream.streamError.map { $0 as NSError }
            print("client \(number) failed: \(error?.domain ?? "?") \(error?.code ?? 0)")
            finish()
        default:
            break
        }
    }

    func answer(_ line: String) {
        guard !closing else { return }
        print("client \(number) said: \(line)")
        if line == "QUIT" {
            closing = true
            outbox.append(Data("bye\r\n".utf8))
        } else {
            outbox.append(Data("echo: \(line)\r\n".utf8))
        }
        flush()
    }

    /// Writes what fits; the rest waits for the next hasSpaceAvailable.
    func flush() {
        while !outbox.isEmpty && output.hasSpaceAvailable {
            let written = outbox.withUnsafeBytes { raw in
                output.write(raw.bindMemory(to: UInt8.self).baseAddress!, maxLength: raw.count)
            }
            guard written > 0 else { return }
            outbox.removeFirst(written)
        }
        if outbox.isEmpty && closing { finish() }
    }

    func finish() {
        guard !finished else { return }
        finished = true
        for stream in [input, output] as [Stream] {
            stream.remove(from: .main, forMode: .default)
            stream.close()
        }
        ended(self)
    }
}

final class EchoServer: NSObject, NetServiceDelegate {
    let clients: Int
    var conversations: [Conversation] = []
    var accepted = 0
    var done = 0

    init(clients: Int) {
        self.clients = clients
    }

    func netServiceDidPublish(_ sender: NetService) {
        print("published \(sender.name) on port \(sender.port)")
    }

    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        print("not published: \(errorDict[NetService.errorCode] ?? -1)")
        exit(2)
    }

    func netService(_ sender: NetService, didAcceptConnectionWith inputStream: InputStream, outputStream: OutputStream) {
        accepted += 1
        print("client \(accepted) connected")
        let conversation = Conversation(number: accepted, input: inputStream, output: outputStream) { [weak self] ended in
            guard let self = self else { return }
            self.conversations.removeAll { $0 === ended }
            self.done += 1
            print("client \(ended.number) done")
            if self.done == self.clients { sender.stop() }
        }
        conversations.append(conversation)
        conversation.start()
    }

    func netServiceDidStop(_ sender: NetService) {
        print("stopped")
        exit(0)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let clients = Int(arguments[3]), clients > 0 else {
    print("usage: bonjour-echo-server SERVICE-TYPE SERVICE-NAME CLIENTS")
    exit(64)
}
// Line by line, so that whoever watches the output sees each event as it happens.
setvbuf(stdout, nil, _IOLBF, 0)
let server = EchoServer(clients: clients)
let service = NetService(domain: "", type: arguments[1], name: arguments[2], port: 0)
service.delegate = server
service.publish(options: .listenForConnections)
// Give up after 60 seconds rather than wait forever for clients that never come.
DispatchQueue.main.asyncAfter(deadline: .now() + 60) {
    print("timed out with \(server.done) of \(clients) clients done")
    exit(5)
}
RunLoop.main.run()
