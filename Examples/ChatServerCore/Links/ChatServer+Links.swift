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
import StreamTaskKit

/// Outgoing links: one loop per peer with an address connects, serves the link until it
/// ends, waits, and connects again, until the server shuts down.
extension ChatServer {
    /// Starts a keeper for each configured peer this server connects out to.
    func keepLinksUp() {
        guard linkKeepers.isEmpty else { return }
        for peer in configuration.links where peer.connectsOut {
            linkKeepers.append(Task { await self.keepLinkUp(to: peer) })
        }
    }

    /// Connects to `peer` again and again, waiting longer after each attempt that did not
    /// register (``ChatServerConfiguration/linkRetryInterval``, doubled up to
    /// ``ChatServerConfiguration/linkRetryMaximum``), until cancelled.
    private nonisolated func keepLinkUp(to peer: ChatLinkPeer) async {
        guard let host = peer.host, let port = peer.port else { return }
        let session: StreamSession
        do {
            session = try configuration.session(for: peer)
        } catch {
            configuration.logger.error("cannot link", metadata: ["peer": "\(peer.name)", "error": "\(error)"])
            return
        }
        var delay = configuration.linkRetryInterval
        while !Task.isCancelled {
            let task = session.streamTask(withHostName: host, port: port)
            if peer.security != .plaintext { task.startSecureConnection() }
            task.resume()
            guard let connection = await admitLink(task, to: peer) else {
                task.cancel()
                return
            }
            let registered = await connection.run()
            if Task.isCancelled { break }
            if registered { delay = configuration.linkRetryInterval }
            var metadata: Logger.Metadata = ["peer": "\(peer.name)", "in": "\(delay)"]
            if !registered, let error = await Self.completion(of: task) { metadata["error"] = "\(error.message)" }
            configuration.logger.notice(
                registered ? "link ended; connecting again" : "link failed; connecting again", metadata: metadata)
            try? await Task.sleep(for: delay)
            if !registered { delay = min(delay * 2, configuration.linkRetryMaximum) }
        }
    }
}

extension ChatServer {
    /// The servers linked to this one directly whose links have registered, by name.
    public var linkedServers: [String] {
        state.establishedLinks().compactMap { state.links[$0]?.name }
    }

    /// Tells the state what each link's connection has done, from its task's metrics.
    func noteLinkTraffic() {
        var traffic: [ChatClientID: ChatLinkTraffic] = [:]
        for id in state.establishedLinks() {
            guard let outbound = outbounds[id] else { continue }
            traffic[id] = ChatLinkTraffic(metrics: outbound.task.metrics, sendQueue: outbound.pendingBytes)
        }
        state.noteLinkTraffic(traffic)
    }

    /// Every other server of the network, by name.
    public var networkServers: [String] {
        state.servers.values.map(\.name).sorted()
    }

    /// How `task` ended: waits for its completion (the connection may end a moment before the
    /// task reports it), and gives its error, if any.
    private static func completion(of task: StreamTask) async -> StreamTaskError? {
        for await event in task.events {
            if case .completed(let error) = event { return error }
        }
        return task.streamTaskError
    }
}

extension ChatLinkTraffic {
    /// The figures of a link's connection, from `metrics` and its send queue.
    public init(metrics: StreamTaskMetrics, sendQueue: Int) {
        self.sendQueue = sendQueue
        bytesSent = metrics.countOfBytesSent
        bytesReceived = metrics.countOfBytesReceived
        openedAt = Int(metrics.taskStartDate.timeIntervalSince1970)
        var parts = [
            metrics.negotiatedTLSVersion.map { "\($0) \(metrics.negotiatedCipherSuite ?? "")" } ?? "plaintext"
        ]
        if let proxy = metrics.proxyKind { parts.append("through \(proxy)") }
        if let local = metrics.localAddress, let remote = metrics.remoteAddress {
            parts.append("\(local):\(metrics.localPort ?? 0) to \(remote):\(metrics.remotePort ?? 0)")
        }
        if let start = metrics.connectStartDate, let end = metrics.connectEndDate {
            parts.append("connected in \(Int((end.timeIntervalSince(start) * 1000).rounded())) ms")
        }
        carriage = parts.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    }
}
