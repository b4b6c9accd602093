//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NIOConcurrencyHelpers

/// How a session's tasks behave: the counterpart of `URLSessionConfiguration`, with its name
/// changed by the porting rule and its members kept.
///
/// As with Apple's class, you take a fresh configuration from ``default`` or ``ephemeral``,
/// change it, and create a session with it; the session keeps a copy, so changing the object
/// afterwards does not change sessions already made.
///
/// ```swift
/// let configuration = StreamSessionConfiguration.default
/// configuration.timeoutIntervalForRequest = 10
/// configuration.tlsMinimumSupportedProtocolVersion = .TLSv12
/// let session = StreamSession(configuration: configuration)
/// ```
///
/// Apple's properties that mean something for stream and data tasks act as Apple documents
/// them; the rest are accepted and kept, with no effect, and say so. The
/// library's own settings (``tls``, ``proxy``, ``timeoutIntervalForRead``…) sit beside them.
/// Every property may be read and set from any thread.
public final class StreamSessionConfiguration: @unchecked Sendable, NSCopying, CustomStringConvertible {
    // @unchecked: every stored value lives in the lock box.
    private let box: NIOLockedValueBox<Values>

    init(values: Values) {
        box = NIOLockedValueBox(values)
    }

    /// A new configuration with every default (the library's secure TLS defaults, the proxy
    /// from the environment, Apple's timeouts).
    public convenience init() {
        self.init(values: Values())
    }

    /// A new configuration with these library settings and every other value at its default.
    /// New code starts from ``default`` and sets properties; this initializer keeps code written
    /// against the earlier value type compiling.
    public convenience init(
        timeoutIntervalForRead: TimeInterval = 0,
        timeoutIntervalForWrite: TimeInterval = 0,
        timeoutIntervalForRequest: TimeInterval = 60,
        maximumConnectionsPerHost: Int = .max,
        inboundBufferLimit: Int = 256 * 1024,
        tls: StreamTLSConfiguration? = nil,
        logger: Logger = Logger(label: "StreamTaskKit", factory: { _ in SwiftLogNoOpLogHandler() }),
        proxy: ProxyConfiguration = .environment
    ) {
        var values = Values()
        values.timeoutIntervalForRead = timeoutIntervalForRead
        values.timeoutIntervalForWrite = timeoutIntervalForWrite
        values.timeoutIntervalForRequest = timeoutIntervalForRequest
        values.maximumConnectionsPerHost = maximumConnectionsPerHost
        values.inboundBufferLimit = inboundBufferLimit
        if let tls { values.tls = tls }
        values.logger = logger
        values.proxy = proxy
        self.init(values: values)
    }

    /// A new configuration with every default, each time you ask: as Apple's, changing it
    /// changes no other configuration.
    public class var `default`: StreamSessionConfiguration { StreamSessionConfiguration() }

    /// A new configuration for a session that keeps nothing on disk. The library never writes
    /// to disk (it has no cache, cookie or credential store), so this is the same as
    /// ``default``; it exists so that code written for `URLSessionConfiguration.ephemeral`
    /// ports unchanged.
    public class var ephemeral: StreamSessionConfiguration { StreamSessionConfiguration() }

    /// A configuration with ``identifier`` set, so that code written for Darwin's background
    /// sessions compiles. The library has no background sessions: tasks of a session made with
    /// it run in the process, as with ``default``, and end with it.
    public class func background(withIdentifier identifier: String) -> StreamSessionConfiguration {
        let configuration = StreamSessionConfiguration()
        configuration.identifier = identifier
        return configuration
    }

    /// Every value at once, as a session copies them.
    var values: Values {
        box.withLockedValue { $0 }
    }

    /// One value, read or set under the lock.
    package subscript<Value>(_ keyPath: WritableKeyPath<Values, Value>) -> Value {
        get { box.withLockedValue { $0[keyPath: keyPath] } }
        set { box.withLockedValue { $0[keyPath: keyPath] = newValue } }
    }

    /// Changes several values at once, under the lock.
    func update(_ change: (inout Values) -> Void) {
        box.withLockedValue(change)
    }

    /// A configuration with the same values, independent of this one.
    public func copy(with zone: NSZone? = nil) -> Any {
        StreamSessionConfiguration(values: values)
    }

    /// A configuration with the same values, independent of this one.
    public func copy() -> StreamSessionConfiguration {
        StreamSessionConfiguration(values: values)
    }

    public var description: String {
        let values = values
        return "StreamSessionConfiguration(request timeout \(values.timeoutIntervalForRequest) s, "
            + "TLS \(values.tls.minimumVersion) or newer, proxy \(values.proxy))"
    }

    // MARK: The library's settings

    /// The timeout used by reads that are not given one (``StreamTask/readData(ofMinLength:maxLength:)`` and
    /// the like), in seconds; 0 means none. Apple's API always passes a timeout, and 0 there
    /// means none too.
    public var timeoutIntervalForRead: TimeInterval {
        get { self[\.timeoutIntervalForRead] }
        set { self[\.timeoutIntervalForRead] = newValue }
    }

    /// The timeout used by writes that are not given one, in seconds; 0 means none.
    public var timeoutIntervalForWrite: TimeInterval {
        get { self[\.timeoutIntervalForWrite] }
        set { self[\.timeoutIntervalForWrite] = newValue }
    }

    /// How long name resolution plus connecting may take: now ``timeoutIntervalForRequest``,
    /// Apple's name for it.
    @available(*, deprecated, renamed: "timeoutIntervalForRequest")
    public var timeoutIntervalForConnect: TimeInterval {
        get { self[\.timeoutIntervalForRequest] }
        set { self[\.timeoutIntervalForRequest] = newValue }
    }

    /// How many stream tasks to one host may be open at once. Tasks resumed over the limit
    /// wait, in the order they were resumed, until one of that host's tasks completes. Tasks
    /// accepted by a listener do not count. No limit by default.
    public var maximumConnectionsPerHost: Int {
        get { self[\.maximumConnectionsPerHost] }
        set { self[\.maximumConnectionsPerHost] = newValue }
    }

    /// How many received bytes a task buffers before it stops reading from the socket until
    /// its owner reads: a slow reader slows the peer instead of growing memory.
    public var inboundBufferLimit: Int {
        get { self[\.inboundBufferLimit] }
        set { self[\.inboundBufferLimit] = newValue }
    }

    /// How many bytes of a task's async writes may still be on their way to the kernel when
    /// ``StreamTask/write(_:timeout:)-(Data,_)`` returns; 1 MiB by default.
    ///
    /// The bytes counted are those between the caller and the kernel: queued for the event loop
    /// or in the channel's own buffer. So it bounds what a task holds for a writer that outruns
    /// its event loop or its peer; and once the channel's own buffer passes its high-water
    /// mark (512 KiB, the kernel's buffer being full), every write waits, whatever room the
    /// limit has left. A smaller limit saves memory on a server with many connections and
    /// costs a bulk writer: at 64 KiB, a writer of 64 KiB writes waits for the kernel on
    /// every second write (measured in `Benchmarks/FINDINGS.md`).
    ///
    /// Below it, an async write on a connected task is queued in order and returns at once, as
    /// `NIOAsyncChannel`'s writer does. Past it, or while the channel's own buffer is full, the
    /// write waits for room, as `NIOAsyncChannel`'s writer waits for the channel to become
    /// writable: it is queued, and returns, once the bytes on their way are down to half the
    /// limit (and its own fit under it), which holds a writer back to the pace of the peer while
    /// the socket still has half the limit to send. A write that times out or is cancelled while
    /// it waits for room is withdrawn: nothing of it is sent and the connection stays open. A
    /// write larger than the limit waits until its own bytes reach the kernel. A write that
    /// returned and then fails (the peer reset the connection, say) makes the next write throw
    /// that error; so does one whose time runs out before its bytes reach the kernel, which,
    /// having returned, cannot be withdrawn: the connection closes with the timeout. The
    /// completion-handler `write` always completes when its bytes reach the kernel, as Apple's
    /// does; so does every async write with 0 here.
    public var outboundBufferLimit: Int {
        get { self[\.outboundBufferLimit] }
        set { self[\.outboundBufferLimit] = newValue }
    }

    /// How client tasks speak TLS after ``StreamTask/startSecureConnection()``: the system's
    /// trust store and the host name checked, and, as Apple's session, TLS 1.0 or newer, which
    /// ``transportSecurity`` raises to TLS 1.2 wherever it applies.
    /// ``tlsMinimumSupportedProtocolVersion`` and ``tlsMaximumSupportedProtocolVersion`` are
    /// views of its versions.
    public var tls: StreamTLSConfiguration {
        get { self[\.tls] }
        set { self[\.tls] = newValue }
    }

    /// App Transport Security for the session's TLS connections and data tasks, on by default:
    /// TLS 1.2 or newer, forward secrecy, strong certificates and no `http://`, except where
    /// its exceptions say otherwise. It starts as ``StreamTransportSecurity/mainBundle``, the
    /// `NSAppTransportSecurity` entry of an `Info.plist` beside the executable, as a Darwin app
    /// keeps it; ``StreamTransportSecurity/init(contentsOf:)`` loads one from elsewhere.
    /// See <doc:TransportSecurity>.
    public var transportSecurity: StreamTransportSecurity {
        get { self[\.transportSecurity] }
        set { self[\.transportSecurity] = newValue }
    }

    /// Where the session and its tasks log. Silent by default; the library logs nothing at
    /// `info` or above.
    public var logger: Logger {
        get { self[\.logger] }
        set { self[\.logger] = newValue }
    }

    /// How tasks reach their hosts: ``ProxyConfiguration/environment-swift.type.property`` by
    /// default, that is through the proxy named by `https_proxy` or `all_proxy`, if any.
    /// Setting ``connectionProxyDictionary`` sets this too.
    public var proxy: ProxyConfiguration {
        get { self[\.proxy] }
        set {
            update {
                $0.proxy = newValue
                $0.connectionProxyDictionary = nil
            }
        }
    }

    /// Whether connected tasks report ``StreamTaskEvent/betterRouteDiscovered`` and
    /// ``StreamTaskEvent/viabilityChanged(isViable:)`` (see <doc:Routes>). On by default;
    /// the whole process shares one monitor, running only while some task uses it.
    public var monitorsRoutes: Bool {
        get { self[\.monitorsRoutes] }
        set { self[\.monitorsRoutes] = newValue }
    }
}

extension StreamSession {
    /// The session's configuration type, ``StreamSessionConfiguration``, under the name it had
    /// before the Apple-shaped class.
    public typealias Configuration = StreamSessionConfiguration
}
