//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation
import NIOConcurrencyHelpers

@testable import StreamTaskDNSSD

/// Runs the current thread's run loop, as a Darwin program does, until `condition` holds or
/// `seconds` have passed; whether it held.
func runCurrentRunLoop(upTo seconds: Double, until condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        RunLoop.current.run(until: min(deadline, Date(timeIntervalSinceNow: 0.05)))
    }
    return true
}

/// One delegate call, with where it was made.
struct DelegateCall {
    let name: String
    /// The run loop and thread it was made on.
    let runLoop: ObjectIdentifier
    let thread: ObjectIdentifier
    var errorCode: Int?
    var errorDomain: Int?
    var moreComing: Bool?
    var service: NetService?
    var data: Data?
}

/// Records every delegate call of services and browsers, in order. Thread-safe, so that a test
/// can read it from another thread than the run loop's.
final class DelegateRecorder: NSObject, NetServiceDelegate, NetServiceBrowserDelegate, @unchecked Sendable {
    // @unchecked Sendable: `calls` is behind `lock`.
    private let lock = NIOLock()
    private var calls: [DelegateCall] = []
    /// Whether `didFind` stops the browser, as a program that wants one service does: the
    /// browser is then stopped on its own run loop.
    let stopsBrowserOnFind: Bool

    init(stopsBrowserOnFind: Bool = false) {
        self.stopsBrowserOnFind = stopsBrowserOnFind
    }

    /// The calls so far.
    var recorded: [DelegateCall] { lock.withLock { calls } }

    /// The names of the calls so far.
    var names: [String] { recorded.map(\.name) }

    /// The calls named `name`.
    func calls(_ name: String) -> [DelegateCall] { recorded.filter { $0.name == name } }

    private func note(
        _ name: String, error: [String: NSNumber]? = nil, moreComing: Bool? = nil, service: NetService? = nil,
        data: Data? = nil
    ) {
        let call = DelegateCall(
            name: name, runLoop: ObjectIdentifier(RunLoop.current), thread: ObjectIdentifier(Thread.current),
            errorCode: error?[NetService.errorCode]?.intValue, errorDomain: error?[NetService.errorDomain]?.intValue,
            moreComing: moreComing, service: service, data: data)
        lock.withLock { calls.append(call) }
    }

    func netServiceWillPublish(_ sender: NetService) { note("willPublish") }
    func netServiceDidPublish(_ sender: NetService) { note("didPublish") }
    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        note("didNotPublish", error: errorDict)
    }
    func netServiceWillResolve(_ sender: NetService) { note("willResolve") }
    func netServiceDidResolveAddress(_ sender: NetService) { note("didResolveAddress", service: sender) }
    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {
        note("didNotResolve", error: errorDict)
    }
    func netServiceDidStop(_ sender: NetService) { note("didStop") }
    func netService(_ sender: NetService, didUpdateTXTRecord data: Data) { note("didUpdateTXTRecord", data: data) }

    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) { note("willSearch") }
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) { note("didStopSearch") }
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        note("didNotSearch", error: errorDict)
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool) {
        note("didFindDomain", moreComing: moreComing, data: Data(domainString.utf8))
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        note("didFind", moreComing: moreComing, service: service)
        if stopsBrowserOnFind { browser.stop() }
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool) {
        note("didRemove", moreComing: moreComing, service: service)
    }
}

extension DelegateRecorder {
    /// Whether a call named `name` was recorded.
    func saw(_ name: String) -> Bool { !calls(name).isEmpty }

    /// Whether `didFind` reported a service named `name`.
    func found(_ name: String) -> NetService? {
        calls("didFind").compactMap(\.service).first { $0.name == name }
    }
}

/// A socket address from `NetService.addresses`: its family, address text and port.
func parseSocketAddress(_ data: Data) -> (family: Int32, host: String, port: Int)? {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let parsed = data.withUnsafeBytes { raw -> (family: Int32, port: UInt16)? in
        guard raw.count >= MemoryLayout<sockaddr>.size else { return nil }
        switch Int32(raw.load(as: sockaddr.self).sa_family) {
        case AF_INET where raw.count == MemoryLayout<sockaddr_in>.size:
            var address = raw.loadUnaligned(as: sockaddr_in.self)
            inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
            return (AF_INET, address.sin_port)
        case AF_INET6 where raw.count == MemoryLayout<sockaddr_in6>.size:
            var address = raw.loadUnaligned(as: sockaddr_in6.self)
            inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
            return (AF_INET6, address.sin6_port)
        default:
            return nil
        }
    }
    guard let parsed else { return nil }
    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (parsed.family, host, Int(UInt16(bigEndian: parsed.port)))
}
#endif
