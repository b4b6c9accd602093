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
    /// `getInputStream(_:outputStream:)`: the streams, and the delegate muted.
    func makeStreams(
        _ inputStream: UnsafeMutablePointer<InputStream?>?,
        _ outputStream: UnsafeMutablePointer<OutputStream?>?
    ) -> Bool {
        delegateMuted = true
        let task = StreamSession.shared.streamTask(with: self)
        let (input, output) = task.captureFoundationStreamsBeforeResuming()
        inputStream?.pointee = input
        outputStream?.pointee = output
        return true
    }
}
#endif
