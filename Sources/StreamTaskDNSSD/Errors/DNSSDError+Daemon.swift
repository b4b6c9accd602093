//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension DNSSDError {
    /// The error for a daemon's `DNSServiceErrorType`, with what we were doing when it came.
    ///
    /// Avahi's compatibility layer reports "no daemon" and "no D-Bus" as
    /// `kDNSServiceErr_Unknown`, so for that code we look for the daemon ourselves and, when it
    /// is not there, say how to start it.
    static func daemon(_ daemonCode: Int32, while doing: String) -> DNSSDError {
        let sentence = DNSServiceErrorText.sentence(for: daemonCode)
        switch daemonCode {
        case DNSServiceErrorText.serviceNotRunning, DNSServiceErrorText.unknown, DNSServiceErrorText.defunctConnection:
            if let missing = DaemonDiagnosis.missingDaemon(reported: daemonCode) {
                return DNSSDError(.serviceNotRunning, "\(doing) failed: \(missing)", daemonErrorCode: daemonCode)
            }
            return DNSSDError(.daemonError, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        case DNSServiceErrorText.nameConflict:
            return DNSSDError(.nameConflict, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        case DNSServiceErrorText.badParam, DNSServiceErrorText.badInterfaceIndex, DNSServiceErrorText.invalid:
            return DNSSDError(.invalidArgument, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        case DNSServiceErrorText.unsupported:
            return DNSSDError(.unsupported, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        case DNSServiceErrorText.timeout:
            return DNSSDError(.timedOut, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        default:
            return DNSSDError(.daemonError, "\(doing) failed: \(sentence)", daemonErrorCode: daemonCode)
        }
    }
}

/// Looks for the DNS-SD daemon when a call failed in a way that may mean it is not there.
enum DaemonDiagnosis {
    /// A sentence saying which daemon is missing and how to start it, or `nil` when the daemon
    /// seems to be running (so the failure that reported `code` has another cause).
    static func missingDaemon(reported code: Int32) -> String? {
        #if os(Linux)
        let bus = systemBusSocketPath()
        if !acceptsConnections(socketPath: bus) {
            return
                "no DNS-SD daemon answered: the D-Bus system bus is not running (nothing listens on \(bus)), and avahi-daemon "
                + "needs it. Start both: `sudo systemctl start dbus avahi-daemon`, or where there is no systemd, "
                + "`sudo dbus-daemon --system --fork` then `sudo avahi-daemon -D`"
        }
        if !processIsRunning(pidFile: "/run/avahi-daemon/pid") {
            return "no DNS-SD daemon answered: avahi-daemon is not running. Start it: `sudo systemctl start "
                + "avahi-daemon`, or where there is no systemd, `sudo avahi-daemon -D` (Debian and Ubuntu "
                + "package: avahi-daemon)"
        }
        return nil
        #else
        guard code == DNSServiceErrorText.serviceNotRunning else { return nil }
        return "no DNS-SD daemon answered: mDNSResponder is not running. It normally runs as part of the system; "
            + "restart it with `sudo launchctl kickstart -k system/com.apple.mDNSResponder`"
        #endif
    }

    #if os(Linux)
    /// Where the D-Bus system bus listens: `DBUS_SYSTEM_BUS_ADDRESS` when it names a path,
    /// the standard socket otherwise.
    static func systemBusSocketPath() -> String {
        let standard = "/run/dbus/system_bus_socket"
        guard let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"],
            let range = address.range(of: "unix:path=")
        else { return standard }
        let path = address[range.upperBound...].prefix { $0 != "," && $0 != ";" }
        return path.isEmpty ? standard : String(path)
    }

    /// Whether something listens on the Unix socket at `path` (a bus that exited leaves its
    /// socket file behind, so the file alone proves nothing).
    static func acceptsConnections(socketPath path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    static func processIsRunning(pidFile: String) -> Bool {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        // EPERM means the process exists but belongs to someone else: still running.
        return kill(pid, 0) == 0 || errno == EPERM
    }
    #endif
}
