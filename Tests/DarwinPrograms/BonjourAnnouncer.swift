//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A Darwin program, written as a macOS tool would be with Bonjour and Foundation's stream tasks:
// it announces an echo service that runs on this machine (as `dns-sd -R` would), with a TXT
// record saying it is starting, then checks the announcement the way a client would see it:
// it browses for the service, resolves it, watches its TXT record, marks the service ready,
// and, once the record it watches says so, sends the service a line over the shared session
// and expects it back. It is kept here as Darwin source; the tests port it with
// scripts/port-from-darwin.sh, compare the result with Examples/Ported/bonjour-announcer, and
// run that against a real avahi-daemon and an echo server.
//
//   bonjour-announcer NAME PORT

import Foundation

let serviceType = "_stkecho._tcp."

func txtRecord(state: String) -> Data {
    NetService.data(fromTXTRecord: ["state": Data(state.utf8), "protocol": Data("echo".utf8)])
}

func state(in txt: Data?) -> String {
    guard let txt = txt, let value = NetService.dictionary(fromTXTRecord: txt)["state"] else { return "?" }
    return String(decoding: value, as: UTF8.self)
}

/// The numeric host of a resolved socket address (`sockaddr_in` or `sockaddr_in6` bytes).
func numericHost(_ address: Data) -> String? {
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    let status = address.withUnsafeBytes { raw -> Int32 in
        let sockaddrPointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
        return getnameinfo(sockaddrPointer, socklen_t(address.count), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
    }
    return status == 0 ? String(cString: host) : nil
}

/// Hears about the announced service.
final class Announcement: NSObject, NetServiceDelegate {
    func netServiceDidPublish(_ sender: NetService) {
        print("published \(sender.name) in \(sender.domain), TXT state=\(state(in: sender.txtRecordData()))")
        browser.searchForServices(ofType: serviceType, inDomain: "local.")
    }

    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        print("not published: \(errorDict[NetService.errorDomain] ?? -1) \(errorDict[NetService.errorCode] ?? -1)")
        exit(2)
    }

    func netServiceDidStop(_ sender: NetService) {
        print("the announcement was withdrawn")
        exit(0)
    }
}

/// Looks for the service and checks it as a client would.
final class Check: NSObject, NetServiceBrowserDelegate, NetServiceDelegate {
    var resolving = false
    var monitoring = false
    var answered = false

    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        print("found \(service.name)\(moreComing ? ", more coming" : "")")
        found.append(service)
        guard !moreComing, !resolving, let ours = found.first(where: { $0.name == announced.name }) else { return }
        resolving = true
        ours.delegate = self
        ours.resolve(withTimeout: 10)
    }

    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        print("browsing failed: \(errorDict[NetService.errorCode] ?? -1)")
        exit(3)
    }

    func netServiceDidResolveAddress(_ sender: NetService) {
        guard !monitoring else { return }
        monitoring = true
        let hosts = (sender.addresses ?? []).compactMap(numericHost)
        print("resolved \(sender.name) on \(sender.hostName ?? "?") port \(sender.port): \(hosts.joined(separator: ", "))")
        print("its TXT record says state=\(state(in: sender.txtRecordData()))")
        sender.startMonitoring()
        // Ready now: the change reaches whoever monitors the record, this program included.
        if !announced.setTXTRecord(txtRecord(state: "ready")) {
            print("could not change the TXT record")
            exit(4)
        }
    }

    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {
        print("not resolved: \(errorDict[NetService.errorCode] ?? -1)")
        exit(5)
    }

    func netService(_ sender: NetService, didUpdateTXTRecord data: Data) {
        let now = state(in: data)
        print("the TXT record now says state=\(now)")
        guard now == "ready", !answered else { return }
        answered = true
        let host = (sender.addresses ?? []).compactMap(numericHost).first { !$0.contains(":") } ?? "127.0.0.1"
        ping(host: host, port: sender.port) { reply in
            print("the service answered: \(reply)")
            sender.stopMonitoring()
            browser.stop()
            announced.stop()
        }
    }
}

/// A line to the echo service and its answer, over the shared session.
func ping(host: String, port: Int, then done: @escaping (String) -> Void) {
    let task = URLSession.shared.streamTask(withHostName: host, port: port)
    task.resume()
    task.write(Data("are you there?\n".utf8), timeout: 10) { error in
        if let error = error as? URLError {
            print("the service cannot be reached: \(error.code.rawValue)")
            exit(6)
        }
    }
    task.readData(ofMinLength: 15, maxLength: 1024, timeout: 10) { data, _, error in
        if let error = error {
            print("no answer: \((error as NSError).code)")
            exit(7)
        }
        task.closeWrite()
        let reply = String(decoding: data ?? Data(), as: UTF8.self).trimmingCharacters(in: .newlines)
        DispatchQueue.main.async { done(reply) }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int32(arguments[2]) else {
    print("usage: bonjour-announcer NAME PORT")
    exit(64)
}
setvbuf(stdout, nil, _IOLBF, 0)
let announcement = Announcement()
let check = Check()
var found: [NetService] = []
let browser = NetServiceBrowser()
browser.delegate = check
let announced = NetService(domain: "local.", type: serviceType, name: arguments[1], port: port)
announced.delegate = announcement
// Keep hearing from Bonjour while the run loop runs in any common mode, not only the default.
announced.schedule(in: .main, forMode: .common)
browser.schedule(in: .main, forMode: .common)
browser.remove(from: .main, forMode: .default)
_ = announced.setTXTRecord(txtRecord(state: "starting"))
announced.publish(options: .noAutoRename)
RunLoop.main.run()
