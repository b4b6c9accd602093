//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Drives a proxy handshake the way ProxyHandshakeHandler does, for the proxy fuzz targets.

import NIOCore

/// How a handshake ended when fed a reply, and what it sent on the way.
struct HandshakeRun: Equatable {
    enum End: Equatable {
        /// The tunnel opened; these bytes (the rest of the reply) are the target's.
        case established(leftover: [UInt8])
        case failed(ProxyHandshakeError)
        /// The reply ran out first.
        case waiting
    }

    var end: End
    var sent: [ByteBuffer]

    /// Feeds `chunks` one read at a time into one buffer, as the handler does, until the
    /// handshake opens the tunnel or fails.
    static func run(_ handshake: some ProxyHandshake, chunks: [[UInt8]]) -> HandshakeRun {
        var handshake = handshake
        var sent: [ByteBuffer] = []
        do {
            sent.append(try handshake.start())
        } catch {
            return HandshakeRun(end: .failed(error), sent: sent)
        }
        var received = ByteBuffer()
        for (index, chunk) in chunks.enumerated() {
            received.writeBytes(chunk)
            received.discardReadBytes()
            do {
                loop: while true {
                    switch try handshake.receive(&received) {
                    case .needMoreData:
                        break loop
                    case .send(let bytes):
                        sent.append(bytes)
                    case .established:
                        let later = chunks[(index + 1)...].flatMap { $0 }
                        return HandshakeRun(
                            end: .established(leftover: Array(received.readableBytesView) + later), sent: sent)
                    }
                }
            } catch {
                return HandshakeRun(end: .failed(error), sent: sent)
            }
        }
        return HandshakeRun(end: .waiting, sent: sent)
    }
}

extension Array where Element == UInt8 {
    func hasSuffix(_ suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
