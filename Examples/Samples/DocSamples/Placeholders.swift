//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import StreamTaskKit

// What the documents' samples leave to the reader: handling a line, a WebSocket key and frame,
// the app's reactions to route changes. Each does nothing here; the samples only need to compile.

/// Handles a line or a chunk the sample read.
func handle(_ data: Data) {}

/// The `Sec-WebSocket-Key` a WebSocket client sends.
let key = "dGhlIHNhbXBsZSBub25jZQ=="

/// A first WebSocket frame.
let firstFrame = Data([0x81, 0x00])

/// Bytes queued up for one write.
let batch = ByteBuffer()

/// The error a sample throws when a server refuses an upgrade.
struct UpgradeRefused: Error {
    let status: Int
}

func reconnectWhenIdle() async {}
func showOffline() {}
func showOnline() {}
