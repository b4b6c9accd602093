//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written with async/await as a macOS tool would be: a line-protocol client
// that trusts what Apple documents about a stream task's state and a write's error. Each round
// it makes two connections to a line server:
// - it says HELLO, cancels the task, and checks `state` at once, as a client that decides
//   whether to reconnect by asking whether its task is still `.running` would;
// - it asks for STARTTLS, upgrades, and writes a few lines: the server is not trusted, so each
//   write must fail; a write whose error is nil would mean the line went out, and the program
//   would go on talking to a server the system does not trust.
// It prints how often each went wrong, and exits with 1 if either did. It is kept here as Darwin
// source; the tests port it with scripts/port-from-darwin.sh, compare the result with
// Examples/Ported/checked-line-client, and run that against the Python line server, whose
// certificate the system does not trust.
//
//   checked-line-client HOST PORT ROUNDS

import Foundation

func nextLine(of task: URLSessionStreamTask) async throws -> String {
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 1024, timeout: 10)
        line.append(data ?? Data())
        if atEOF { break }
    }
    return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
}

/// Whether the task still reads as running right after cancel() returned.
func cancelLeavesItRunning(_ session: URLSession, host: String, port: Int) async throws -> Bool {
    let task = session.streamTask(withHostName: host, port: port)
    task.resume()
    try await task.write(Data("HELLO round\n".utf8), timeout: 10)
    _ = try await nextLine(of: task)
    task.cancel()
    return task.state == .running
}

/// How many of the writes issued after startSecureConnection() came back without an error,
/// with a server the system does not trust: each must fail, with -1202.
func writesUnderAnUntrustedHandshake(_ session: URLSession, host: String, port: Int, writes: Int) async throws -> Int {
    let task = session.streamTask(withHostName: host, port: port)
    task.resume()
    try await task.write(Data("STARTTLS\n".utf8), timeout: 10)
    let answer = try await nextLine(of: task)
    guard answer == "OK starttls" else {
        print("the server answered STARTTLS with: \(answer)")
        exit(3)
    }
    task.startSecureConnection()
    var succeeded = 0
    for _ in 0..<writes {
        do {
            try await task.write(Data("STATUS\n".utf8), timeout: 10)
            succeeded += 1
        } catch {
            guard (error as NSError).code == URLError.Code.serverCertificateUntrusted.rawValue else {
                print("a write under TLS failed otherwise: \((error as NSError).code)")
                exit(3)
            }
        }
    }
    task.cancel()
    return succeeded
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[2]), let rounds = Int(arguments[3]) else {
    print("usage: checked-line-client HOST PORT ROUNDS")
    exit(64)
}
let host = arguments[1]
let configuration = URLSessionConfiguration.ephemeral
configuration.connectionProxyDictionary = [:]  // never through a proxy
let session = URLSession(configuration: configuration)
var stillRunning = 0
var writesThatSucceeded = 0
var roundsWithSuchWrites = 0
for _ in 0..<rounds {
    if try await cancelLeavesItRunning(session, host: host, port: port) {
        stillRunning += 1
    }
    let succeeded = try await writesUnderAnUntrustedHandshake(session, host: host, port: port, writes: 4)
    writesThatSucceeded += succeeded
    if succeeded > 0 { roundsWithSuchWrites += 1 }
}
print("state still running right after cancel() in \(stillRunning) of \(rounds) rounds")
print("writes under an untrusted handshake succeeded in \(roundsWithSuchWrites) of \(rounds) rounds (\(writesThatSucceeded) writes)")
exit(stillRunning == 0 && writesThatSucceeded == 0 ? 0 : 1)
