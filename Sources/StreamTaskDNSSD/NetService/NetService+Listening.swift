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
import StreamTaskCore

extension NetService {
    /// Publishing `id` with `.listenForConnections`: binds a TCP listener at the service's port
    /// (0 for any free one) on every IPv6 and IPv4 address, or IPv4 alone where the system has
    /// no IPv6, then registers the service at the port it got. Each connection it accepts is
    /// handed to the delegate as a pair of unopened Foundation streams. A type that is not
    /// `_tcp`, or a port outside 0 to 65535, fails with `.badArgumentError`; a port that cannot
    /// be bound, with `.unknownError`.
    func listen(id: Int, renameOnConflict: Bool) {
        let labels = DNSSDService.normalizedType(storedType).split(separator: ".")
        guard labels.last == "_tcp", (0...65535).contains(publishedPort) else {
            mailbox.post(.notPublished(id: nil, .badArgumentError))
            return
        }
        activity = .listening(id: id)
        let mailbox = self.mailbox
        let port = publishedPort
        Task { await NetService.listen(at: port, for: id, renameOnConflict: renameOnConflict, telling: mailbox) }
    }

    /// Binds, tells the run loop, and hands the connections over until the listener stops.
    private static func listen(
        at port: Int, for id: Int, renameOnConflict: Bool, telling mailbox: RunLoopMailbox<NetServiceEvent>
    ) async {
        guard let listener = await boundListener(port: port) else {
            mailbox.post(.notPublished(id: id, .unknownError))
            return
        }
        mailbox.post(.listening(id: id, listener, renameOnConflict: renameOnConflict))
        await handOver(listener.connections, of: id, to: mailbox)
    }

    /// Captures the streams of each connection accepted, and sends them to the run loop.
    private static func handOver(
        _ connections: StreamListener.Connections, of id: Int, to mailbox: RunLoopMailbox<NetServiceEvent>
    ) async {
        for await task in connections {
            guard let streams = try? await AcceptedStreams(capturing: task) else {
                task.cancel()
                continue
            }
            mailbox.post(.accepted(id: id, streams))
        }
    }

    /// A listener bound to `port` on the IPv6 wildcard address (which takes IPv4 too), or on
    /// IPv4's where that fails; `nil` if neither binds.
    private static func boundListener(port: Int) async -> StreamListener? {
        for host in ["::", "0.0.0.0"] {
            let listener = StreamListener(host: host, port: port, session: StreamSession.shared)
            do {
                try await listener.start()
                return listener
            } catch {
                await listener.shutdown(gracePeriod: 0)
            }
        }
        return nil
    }

    /// Stops accepting; connections handed over go on (they belong to their streams).
    func stopListening() {
        guard let listener else { return }
        self.listener = nil
        Task { await listener.shutdown(gracePeriod: nil) }
    }
}

extension NetService.Activity {
    /// The id of the publish or resolve under way; `nil` when idle.
    var id: Int? {
        switch self {
        case .idle: return nil
        case .listening(let id), .publishing(let id, _), .published(let id, _), .resolving(let id, _, _): return id
        }
    }
}

/// The streams of a connection a listening service accepted, on their way to its run loop.
/// `@unchecked Sendable`: handed from the accepting task to the run loop, used only there.
struct AcceptedStreams: @unchecked Sendable {
    let input: InputStream
    let output: OutputStream

    /// The streams of `task`, captured.
    init(capturing task: StreamTask) async throws {
        (input, output) = try await task.captureFoundationStreams()
    }
}
#endif
