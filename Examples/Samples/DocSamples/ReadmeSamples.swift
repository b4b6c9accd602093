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

// README.md's fragments (its whole programs are the sample-* executables).

func readmeTLS() async throws {
    // sample: README.md 4
    let configuration = StreamSessionConfiguration.default
    configuration.tls.additionalTrustRoots = [try TLSCertificate(pemFile: "ca.pem")]  // optional
    let task = StreamSession(configuration: configuration).streamTask(withHostName: "mail.example", port: 587)
    task.resume()
    // … read the greeting, write "STARTTLS\r\n", read the go-ahead …
    try await task.startTLS(timeout: 10)  // waits for earlier reads and writes; later ones run protected

    // A server: upgrade an accepted task, or make the whole listener TLS from the first byte.
    let tls = try StreamTLSConfiguration.server(certificatePEMFile: "cert.pem", privateKeyPEMFile: "key.pem")
    let listener = StreamListener(host: "127.0.0.1", port: 6697, tls: tls)
    // end sample
    _ = listener
}

func readmeProxies() throws {
    // sample: README.md 5
    let configuration = StreamSessionConfiguration.default
    configuration.proxy = .httpConnect(host: "proxy.example", port: 3128,
                                       credentials: ProxyCredentials(username: "me", password: "secret"))
    configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)  // the proxy resolves names (socks5h)
    configuration.proxy = try ProxyConfiguration(url: "socks5://me:secret@127.0.0.1:1080")
    configuration.proxy = .direct                                 // ignore the environment
    let session = StreamSession(configuration: configuration)
    // end sample
    _ = session
}

// sample: README.md 7
final class IRCConnection: NSObject, StreamSessionStreamDelegate {  // was URLSessionStreamDelegate
    func connect() {
        let configuration = StreamSessionConfiguration.default        // was URLSessionConfiguration
        configuration.timeoutIntervalForRequest = 10
        configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
        let session = StreamSession(configuration: configuration, delegate: self, delegateQueue: .main)
        let task = session.streamTask(withHostName: "irc.example", port: 6667)
        task.resume()
        task.readData(ofMinLength: 1, maxLength: 4096, timeout: 30) { data, atEOF, error in
            if (error as? URLError)?.code == .timedOut { print("no answer in 30 s") }
        }
    }

    func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask) {
        print("the server closed its side")
    }
}
// end sample
