import Foundation

/// This process's TCP sockets, found through /proc: precise even while other tests open and
/// close sockets of their own.
enum OpenSockets {
    /// How many of this process's file descriptors are TCP sockets with `port` at either end.
    static func count(port: Int) -> Int {
        descriptors(port: port).count
    }

    /// This process's file descriptors that are TCP sockets with `port` at either end (with
    /// `localOnly`, only those whose own port is `port`: a listener's and its accepted ones).
    static func descriptors(port: Int, localOnly: Bool = false) -> [Int32] {
        let inodes = tcpInodes(port: port, localOnly: localOnly)
        guard !inodes.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return entries.compactMap { entry -> Int32? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry),
                target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
            else { return nil }
            return Int32(entry)
        }
    }

    /// The inodes of the TCP sockets (IPv4 and IPv6) with `port` at one end.
    private static func tcpInodes(port: Int, localOnly: Bool) -> Set<String> {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                let ends = localOnly ? [fields[1]] : [fields[1], fields[2]]
                let ports = ends.compactMap { $0.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
                if ports.contains(port) { inodes.insert(String(fields[9])) }
            }
        }
        return inodes
    }
}
