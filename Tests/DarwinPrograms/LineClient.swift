//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS app would be with Foundation's stream tasks: it talks a
// line protocol to a server, optionally protecting part of the conversation with TLS and
// dropping back to plaintext afterwards (as FTP's CCC does), and, asked to, waits for the
// system to report a better route to the server and moves its conversation to a new
// connection, which takes that route. It is kept here as Darwin source; the tests port it with
// scripts/port-from-darwin.sh, compare the result with Examples/Ported/line-client, and run that
// against a Python line server, on loopback and in a network namespace reachable by two routes.
//
// With --trust-server it trusts whatever certificate the server presents, as a client of a
// self-signed development server would.
//
//   line-client HOST PORT [--tls] [--trust-server] [--move-to-better-route]

import Foundation

final class LineClient: NSObject, URLSessionStreamDelegate {
    let host: String
    let port: Int
    let useTLS: Bool
    let moves: Bool
    let trustsServer: Bool
    var session: URLSession!
    var task: URLSessionStreamTask?
    var connections = 0
    var pending = Data()
    var script: [(send: String, expect: String)] = []
    var betterRouteSeen = false
    var waitingForRoute = false
    var exitStatus: Int32 = 0

    init(host: String, port: Int, useTLS: Bool, moves: Bool, trustsServer: Bool) {
        self.host = host
        self.port = port
        self.useTLS = useTLS
        self.moves = moves
        self.trustsServer = trustsServer
    }

    func start() {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 120
        configuration.httpMaximumConnectionsPerHost = 2
        configuration.waitsForConnectivity = false
        configuration.allowsCellularAccess = false
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        configuration.tlsMaximumSupportedProtocolVersion = .TLSv13
        // Straight to the server, whatever proxy the system names.
        configuration.connectionProxyDictionary = [
            kCFNetworkProxiesHTTPSEnable as String: false, kCFNetworkProxiesSOCKSEnable as String: false,
        ]
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        connect()
    }

    func connect() {
        connections += 1
        let task = session.streamTask(withHostName: host, port: port)
        task.taskDescription = "connection \(connections)"
        self.task = task
        task.resume()
        pending = Data()
        script = [("HELLO from \(task.taskDescription!)", "HELLO from \(task.taskDescription!)")]
        if useTLS {
            script += [("STARTTLS", "OK starttls"), ("STATUS", "STATUS tls"), ("STOPTLS", "OK stoptls")]
        }
        script += [("STATUS", "STATUS plain")]
        next()
        readLine()
    }

    func next() {
        guard let step = script.first else {
            conversationOver()
            return
        }
        task?.write(Data("\(step.send)\r\n".utf8), timeout: 10) { error in
            if let error = error {
                print("write failed: \((error as NSError).code)")
            }
        }
    }

    func readLine() {
        task?.readData(ofMinLength: 1, maxLength: 1024, timeout: 10) { data, atEOF, error in
            if let error = error as? URLError {
                print("read failed: \(error.code == .timedOut ? "timed out" : "\(error.code.rawValue)")")
                return
            }
            if let data = data {
                self.pending.append(data)
            }
            while let end = self.pending.range(of: Data("\r\n".utf8)) {
                let line = String(decoding: self.pending[self.pending.startIndex..<end.lowerBound], as: UTF8.self)
                self.pending.removeSubrange(self.pending.startIndex..<end.upperBound)
                self.handle(line)
            }
            if !atEOF && !self.script.isEmpty {
                self.readLine()
            }
        }
    }

    func handle(_ line: String) {
        guard let step = script.first else { return }
        print("\(task?.taskDescription ?? "?"): \(step.send) -> \(line)")
        guard line == step.expect else {
            print("unexpected answer")
            exitStatus = 1
            script = []
            conversationOver()
            return
        }
        script.removeFirst()
        // Operations issued after these wait for the handshake or the close_notify exchange.
        if step.send == "STARTTLS" {
            task?.startSecureConnection()
        } else if step.send == "STOPTLS" {
            task?.stopSecureConnection()
        }
        next()
    }

    func conversationOver() {
        guard let task = task else { return }
        if moves && connections == 1 && exitStatus == 0 && !betterRouteSeen {
            print("waiting for a better route")
            waitingForRoute = true
            return
        }
        finish(task)
        if moves && connections == 1 && exitStatus == 0 {
            print("moving to the better route")
            connect()
        }
    }

    /// Nothing more to read or to say: both directions close, and the server ends the connection.
    func finish(_ task: URLSessionStreamTask) {
        task.closeRead()
        task.closeWrite()
    }

    // MARK: URLSessionStreamDelegate

    func urlSession(_ session: URLSession, betterRouteDiscoveredFor streamTask: URLSessionStreamTask) {
        print("a better route appeared for \(streamTask.taskDescription ?? "?")")
        guard streamTask === task, !betterRouteSeen else { return }
        betterRouteSeen = true
        if waitingForRoute {
            waitingForRoute = false
            conversationOver()
        }
    }

    func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask) {
        print("\(streamTask.taskDescription ?? "?"): the server closed its side")
    }

    // MARK: URLSessionDelegate

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        print("session challenge for \(space.host):\(space.port), failures \(challenge.previousFailureCount)")
        if space.host != host {
            completionHandler(.rejectProtectionSpace, nil)
        } else if challenge.previousFailureCount > 0 {
            completionHandler(.cancelAuthenticationChallenge, nil)
        } else if trustsServer && space.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let serverTrust = space.serverTrust
        {
            print("trusting the server's certificate as presented")
            completionHandler(.useCredential, URLCredential(trust: serverTrust))
        } else {
            completionHandler(.performDefaultHandling, nil)  // trust what the system trusts
        }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: Error?) {
        print("session invalidated")
        exit(exitStatus)
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        let name = task.taskDescription ?? "?"
        guard let transaction = metrics.transactionMetrics.last else { return }
        print(
            "\(name): from \(transaction.localAddress ?? "?") to \(transaction.remoteAddress ?? "?"):"
                + "\(transaction.remotePort ?? 0), local port \(transaction.localPort ?? 0), "
                + "proxy \(transaction.isProxyConnection), reused \(transaction.isReusedConnection)")
        let tls = transaction.negotiatedTLSProtocolVersion.map { $0 == .TLSv13 ? "1.3" : "1.2 or older" } ?? "none"
        print("\(name): TLS \(tls), redirects \(metrics.redirectCount), \(transaction.countOfResponseBodyBytesReceived) bytes received")
        let dates = [
            transaction.fetchStartDate, transaction.domainLookupStartDate, transaction.domainLookupEndDate,
            transaction.connectStartDate, transaction.connectEndDate, metrics.taskInterval.end,
        ]
        let known = dates.compactMap { $0 }
        print("\(name): fetch, lookup, connect and end in order: \(known.count == dates.count && known == known.sorted())")
        if let secured = transaction.secureConnectionEndDate, let begun = transaction.secureConnectionStartDate {
            print("\(name): handshake took \(secured >= begun ? "a while" : "negative time")")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let name = task.taskDescription ?? "?"
        if let error = error {
            let nsError = error as NSError
            let origin = nsError.domain == NSURLErrorDomain ? "NSURLErrorDomain" : "elsewhere (\(nsError.domain))"
            switch (error as? URLError)?.code {
            case .some(.cannotFindHost): print("\(name): no such host: \(origin) \(nsError.code)")
            case .some(.cannotConnectToHost): print("\(name): cannot connect: \(origin) \(nsError.code)")
            case .some(.timedOut): print("\(name): timed out: \(origin) \(nsError.code)")
            case .some(.serverCertificateUntrusted), .some(.serverCertificateHasUnknownRoot):
                print("\(name): the server's certificate is not trusted: \(origin) \(nsError.code)")
            case .some(.clientCertificateRejected): print("\(name): the server refused our certificate")
            case .some(.secureConnectionFailed): print("\(name): TLS failed: \(origin) \(nsError.code)")
            case .some(.cancelled): print("\(name): cancelled")
            default: print("\(name): failed: \(origin) \(nsError.code) \(error.localizedDescription)")
            }
            exitStatus = exitStatus == 0 ? 2 : exitStatus
        } else {
            print("\(name) completed")
        }
        if task === self.task {
            session.finishTasksAndInvalidate()
        }
    }
}

setvbuf(stdout, nil, _IOLBF, 0)  // each line out as it is printed: someone may be watching
let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[2]) else {
    print("usage: line-client HOST PORT [--tls] [--trust-server] [--move-to-better-route]")
    exit(64)
}
let client = LineClient(
    host: arguments[1], port: port, useTLS: arguments.contains("--tls"),
    moves: arguments.contains("--move-to-better-route"), trustsServer: arguments.contains("--trust-server"))
client.start()
dispatchMain()
