//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS app would be with Foundation's stream tasks: it sends
// one mail through an SMTP server that requires STARTTLS, trusting the server as the system
// does, and reports what the session measured. It is kept here as Darwin source; the tests port
// it with scripts/port-from-darwin.sh, compare the result with Examples/Ported/smtp-mailer, and
// run that against aiosmtpd.
//
//   smtp-mailer HOST PORT FROM TO SUBJECT LINE…

import Foundation
import StreamTaskKit

final class SMTPMailer: NSObject, StreamSessionStreamDelegate {
    let from: String
    let to: String
    let message: String
    var task: StreamSessionStreamTask?
    var pending = Data()
    var reply: [String] = []
    var step = "greeting"
    var upgraded = false
    var bytesWritten = 0
    var bytesRead = 0
    var exitStatus: Int32 = 1

    init(from: String, to: String, subject: String, lines: [String]) {
        self.from = from
        self.to = to
        // Dot-stuffing: a line that begins with "." gets another, so that it cannot end the data.
        let body = lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }
        message = (["From: <\(from)>", "To: <\(to)>", "Subject: \(subject)", ""] + body).joined(separator: "\r\n")
    }

    func start(host: String, port: Int) {
        let configuration = StreamSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = StreamSession(configuration: configuration, delegate: self, delegateQueue: queue)
        let task = session.streamTask(withHostName: host, port: port)
        task.taskDescription = "mail to \(to)"
        task.priority = StreamSessionTask.lowPriority
        task.earliestBeginDate = Date(timeIntervalSinceNow: 0.3)  // let the caller's work settle first
        self.task = task
        task.resume()
        // The session goes away once the mail is sent; urlSession(_:didBecomeInvalidWithError:) says when.
        session.finishTasksAndInvalidate()
        readReply()
    }

    func send(_ line: String) {
        let data = Data("\(line)\r\n".utf8)
        bytesWritten += data.count
        task?.write(data, timeout: 10) { error in
            if let error = error {
                print("write failed: \((error as NSError).code)")
            }
        }
    }

    func readReply() {
        task?.readData(ofMinLength: 1, maxLength: 4096, timeout: 30) { data, atEOF, error in
            if let error = error as? URLError, error.code == .timedOut {
                print("the server said nothing for 30 s")
            }
            guard error == nil else { return }  // urlSession(_:task:didCompleteWithError:) reports it
            if let data = data {
                self.bytesRead += data.count
                self.pending.append(data)
                self.handleLines()
            }
            if !atEOF {
                self.readReply()
            }
        }
    }

    func handleLines() {
        while let end = pending.range(of: Data("\r\n".utf8)) {
            let line = String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self)
            pending.removeSubrange(pending.startIndex..<end.upperBound)
            reply.append(line)
            // "250-…" goes on, "250 …" ends a reply.
            if line.count < 4 || line[line.index(line.startIndex, offsetBy: 3)] != "-" {
                let lines = reply
                reply = []
                handle(code: Int(line.prefix(3)) ?? 0, lines: lines)
            }
        }
    }

    func handle(code: Int, lines: [String]) {
        switch (step, code) {
        case ("greeting", 220):
            step = "ehlo"
            send("EHLO darwin.invalid")
        case ("ehlo", 250) where !upgraded:
            guard lines.contains(where: { $0.dropFirst(4).uppercased() == "STARTTLS" }) else {
                print("the server does not offer STARTTLS: not sending")
                send("QUIT")
                step = "quit"
                return
            }
            step = "starttls"
            send("STARTTLS")
        case ("starttls", 220):
            upgraded = true
            task?.startSecureConnection()
            step = "ehlo"
            send("EHLO darwin.invalid")
        case ("ehlo", 250):
            print("TLS is on; the server offers STARTTLS again: \(lines.contains { $0.contains("STARTTLS") })")
            step = "mail"
            send("MAIL FROM:<\(from)>")
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
            exitStatus = 0
            step = "quit"
            send("QUIT")
        case ("quit", 221):
            task?.closeWrite()
        default:
            print("unexpected reply in step \(step): \(lines.joined(separator: " | "))")
            step = "quit"
            send("QUIT")
        }
    }

    // MARK: StreamSessionTaskDelegate

    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (StreamSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        print("challenge \(space.authenticationMethod) for \(space.host):\(space.port)")
        completionHandler(.performDefaultHandling, nil)  // trust what the system trusts
    }

    func urlSession(_ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics) {
        guard let transaction = metrics.transactionMetrics.last else { return }
        switch transaction.negotiatedTLSProtocolVersion {
        case .TLSv13?: print("metrics: TLS 1.3")
        case .TLSv12?: print("metrics: TLS 1.2")
        default: print("metrics: no TLS")
        }
        if let suite = transaction.negotiatedTLSCipherSuite {
            print("metrics: cipher suite 0x\(String(suite.rawValue, radix: 16))")
        }
        if let begin = task.earliestBeginDate, let start = transaction.connectStartDate {
            print("metrics: connecting started \(start >= begin ? "no earlier than" : "before") the earliest begin date")
        }
        print("metrics: to port \(transaction.remotePort ?? 0), \(transaction.countOfRequestBodyBytesSent) bytes sent")
    }

    func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: Error?) {
        print("\(task.taskDescription ?? "task") completed, priority \(task.priority)")
        print("sent \(task.countOfBytesSent) bytes (wrote \(bytesWritten)), received \(task.countOfBytesReceived) (read \(bytesRead))")
        print("expected to send \(task.countOfBytesExpectedToSend), to receive \(task.countOfBytesExpectedToReceive)")
        print("progress finished: \(task.progress.isFinished)")
        guard let error = error else { return }
        let nsError = error as NSError
        if let urlError = error as? URLError {
            switch urlError.code {
            case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate:
                print("the server's certificate is not trusted: \(nsError.domain) \(nsError.code)")
                exitStatus = 3
                return
            case .cannotConnectToHost:
                print("cannot connect: \(nsError.domain) \(nsError.code)")
                exitStatus = 2
                return
            default:
                break
            }
        }
        print("failed: \(nsError.domain) \(nsError.code) \(error.localizedDescription)")
        exitStatus = 1
    }

    // MARK: StreamSessionStreamDelegate

    func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask) {
        print("our side is closed")
    }

    func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask) {
        print("the server closed the connection")
    }

    // MARK: StreamSessionDelegate

    func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: Error?) {
        print("session invalidated\(error.map { ": \($0)" } ?? "")")
        exit(exitStatus)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 7, let port = Int(arguments[2]) else {
    print("usage: smtp-mailer HOST PORT FROM TO SUBJECT LINE…")
    exit(64)
}
let mailer = SMTPMailer(from: arguments[3], to: arguments[4], subject: arguments[5], lines: Array(arguments[6...]))
mailer.start(host: arguments[1], port: port)
dispatchMain()
