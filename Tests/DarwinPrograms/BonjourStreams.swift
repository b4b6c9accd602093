//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS app would be with Bonjour and Foundation streams: it
// browses for a service type, asks the service with the name it is given for its streams
// (getInputStream), and drives them from a StreamDelegate on the main run loop: it sends its
// lines when there is space, prints each line it reads, and exits at the end of the stream. It
// is kept here as Darwin source; the tests port it with scripts/port-from-darwin.sh, compare
// the result with Examples/Ported/bonjour-streams, and run that against chat-server advertised
// over DNS-SD.
//
//   bonjour-streams SERVICE-TYPE SERVICE-NAME LINE...

import Foundation

final class BonjourStreams: NSObject, NetServiceBrowserDelegate, StreamDelegate {
    let wanted: String
    var unsent: [UInt8]
    var service: NetService?
    var inputStream: InputStream?
    var outputStream: OutputStream?
    var unread = Data()

    init(wanted: String, lines: [String]) {
        self.wanted = wanted
        self.unsent = Array(lines.map { $0 + "\r\n" }.joined().utf8)
    }

    // MARK: NetServiceBrowserDelegate

    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        guard service.name == wanted, self.service == nil else { return }
        print("found \(service.name)")
        browser.stop()
        self.service = service
        var input: InputStream?
        var output: OutputStream?
        guard service.getInputStream(&input, outputStream: &output), let input = input, let output = output else {
            print("no streams for \(service.name)")
            exit(2)
        }
        inputStream = input
        outputStream = output
        for stream in [input, output] as [Stream] {
            stream.delegate = self
            stream.schedule(in: .current, forMode: .default)
            stream.open()
        }
    }

    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        print("browsing failed: \(errorDict[NetService.errorCode] ?? -1)")
        exit(3)
    }

    // MARK: StreamDelegate

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        let name = aStream === inputStream ? "input" : "output"
        switch eventCode {
        case .openCompleted:
            print("\(name) opened")
        case .hasSpaceAvailable:
            guard !unsent.isEmpty, let output = outputStream else { return }
            let written = output.write(unsent, maxLength: unsent.count)
            if written > 0 {
                unsent.removeFirst(written)
                if unsent.isEmpty { print("sent every line") }
            }
        case .hasBytesAvailable:
            guard let input = inputStream else { return }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = input.read(&buffer, maxLength: buffer.count)
            if count > 0 { unread.append(contentsOf: buffer[0..<count]) }
            while let end = unread.range(of: Data("\r\n".utf8)) {
                print("< " + String(decoding: unread[unread.startIndex..<end.lowerBound], as: UTF8.self))
                unread.removeSubrange(unread.startIndex..<end.upperBound)
            }
        case .endEncountered:
            print("end of stream")
            inputStream?.close()
            outputStream?.close()
            exit(0)
        case .errorOccurred:
            let error = aStream.streamError.map { $0 as NSError }
            print("\(name) failed: \(error?.domain ?? "?") \(error?.code ?? 0)")
            exit(1)
        default:
            break
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    print("usage: bonjour-streams SERVICE-TYPE SERVICE-NAME LINE...")
    exit(64)
}
let browser = NetServiceBrowser()
let client = BonjourStreams(wanted: arguments[2], lines: Array(arguments[3...]))
browser.delegate = client
browser.searchForServices(ofType: arguments[1], inDomain: "local.")
RunLoop.main.run()
