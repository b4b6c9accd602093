//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS tool would be with Foundation's socket streams: it sends
// one mail through an SMTP server, over streams from Stream.getStreamsToHost driven by a
// StreamDelegate on the main run loop. TLS comes from the streams' security level: set after
// the server's go-ahead to STARTTLS, or, with --smtps, before the streams open (implicit TLS).
// The server is trusted as the system trusts it. It is kept here as Darwin source; the tests
// port it with scripts/port-from-darwin.sh, compare the result with
// Examples/Ported/streams-mailer, and run that against aiosmtpd.
//
//   streams-mailer [--smtps] HOST PORT FROM TO SUBJECT LINE…

import Foundation
import StreamTaskKit

final class StreamsMailer: NSObject, StreamDelegate {
    let input: InputStream
    let output: OutputStream
    let implicitTLS: Bool
    let from: String
    let to: String
    let message: String
    var received = Data()
    var reply: [String] = []
    var outbox = Data()
    var step = "greeting"
    var secured: Bool

    init(input: InputStream, output: OutputStream, implicitTLS: Bool, from: String, to: String, subject: String,
         lines: [String]) {
        self.input = input
        self.output = output
        self.implicitTLS = implicitTLS
        self.secured = implicitTLS
        self.from = from
        self.to = to
        // Dot-stuffing: a line that begins with "." gets another, so that it cannot end the data.
        let body = lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }
        message = (["From: <\(from)>", "To: <\(to)>", "Subject: \(subject)", ""] + body).joined(separator: "\r\n")
    }

    func start() {
        if implicitTLS {
            // Before opening: the connection is protected from its first byte.
            input.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
            output.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
        }
        for stream in [input, output] as [Stream] {
            stream.delegate = self
            stream.schedule(in: .main, forMode: .default)
            stream.open()
        }
    }

    func send(_ line: String) {
        outbox.append(Data("\(line)\r\n".utf8))
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
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        switch eventCode {
        case .openCompleted:
            if aStream === input {
                print("input opened")
            } else {
                print("output opened, space available: \(output.hasSpaceAvailable)")
            }
        case .hasSpaceAvailable:
            flush()
        case .hasBytesAvailable:
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = input.read(&buffer, maxLength: buffer.count)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
                readLines()
            }
        case .endEncountered:
            print("the server closed the connection")
            finish(step == "done" ? 0 : 1)
        case .errorOccurred:
            let error = aStream.streamError.map { $0 as NSError }
            print("stream error in step \(step): \(error?.domain ?? "?") \(error?.code ?? 0)")
            finish(3)
        default:
            break
        }
    }

    func readLines() {
        while let end = received.range(of: Data("\r\n".utf8)) {
            let line = String(decoding: received[received.startIndex..<end.lowerBound], as: UTF8.self)
            received.removeSubrange(received.startIndex..<end.upperBound)
            reply.append(line)
            // "250-…" continues the reply; "250 …" ends it.
            if line.count < 4 || line[line.index(line.startIndex, offsetBy: 3)] != "-" {
                let complete = reply
                reply = []
                handle(complete)
            }
        }
    }

    func handle(_ lines: [String]) {
        let code = Int(lines.last?.prefix(3) ?? "") ?? 0
        switch (step, code) {
        case ("greeting", 220):
            step = "ehlo"
            send("EHLO localhost")
        case ("ehlo", 250):
            let offersSTARTTLS = lines.contains { $0.dropFirst(4).uppercased() == "STARTTLS" }
            if secured {
                print("TLS is on; the server offers STARTTLS: \(offersSTARTTLS)")
                step = "mail"
                send("MAIL FROM:<\(from)>")
            } else if offersSTARTTLS {
                step = "starttls"
                send("STARTTLS")
            } else {
                print("the server does not offer STARTTLS")
                finish(2)
            }
        case ("starttls", 220):
            // The go-ahead: everything after it goes over TLS.
            let asked = input.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
            output.setProperty(StreamSocketSecurityLevel.negotiatedSSL, forKey: .socketSecurityLevelKey)
            let level = output.property(forKey: .socketSecurityLevelKey) as? String
            print("asked for TLS: \(asked), level \(level ?? "none")")
            print("space before the handshake: \(output.hasSpaceAvailable)")
            secured = true
            step = "ehlo"
            send("EHLO localhost")
        case ("mail", 250):
            step = "rcpt"
            send("RCPT TO:<\(to)>")
        case ("rcpt", 250):
            step = "data"
            send("DATA")
        case ("data", 354):
            step = "sent"
            send(message + "\r\n.")
        case ("sent", 250):
            print("the server accepted the mail: \(lines.last ?? "")")
            step = "quit"
            send("QUIT")
        case ("quit", 221):
            step = "done"
            output.close()
        default:
            print("unexpected reply in step \(step): \(lines.joined(separator: " | "))")
            finish(4)
        }
    }

    func finish(_ status: Int32) {
        for stream in [input, output] as [Stream] {
            stream.remove(from: .main, forMode: .default)
            stream.close()
        }
        exit(status)
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
let implicitTLS = arguments.first == "--smtps"
if implicitTLS { arguments.removeFirst() }
guard arguments.count >= 6, let port = Int(arguments[1]) else {
    print("usage: streams-mailer [--smtps] HOST PORT FROM TO SUBJECT LINE…")
    exit(64)
}
var inputStream: InputStream?
var outputStream: OutputStream?
Stream.getStreamsToHost(withName: arguments[0], port: port, inputStream: &inputStream, outputStream: &outputStream)
guard let input = inputStream, let output = outputStream else {
    print("no streams to \(arguments[0])")
    exit(2)
}
let mailer = StreamsMailer(
    input: input, output: output, implicitTLS: implicitTLS, from: arguments[2], to: arguments[3],
    subject: arguments[4], lines: Array(arguments[5...]))
mailer.start()
// Give up after 30 seconds rather than wait forever on a silent server.
DispatchQueue.main.asyncAfter(deadline: .now() + 30) {
    print("timed out in step \(mailer.step)")
    exit(5)
}
RunLoop.main.run()
