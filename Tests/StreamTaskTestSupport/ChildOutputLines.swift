//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers

/// A child's output file read line by line as the child writes it, by polling: the way a test
/// reads what a peer prints (its port first) without a pipe, which a child that outlives a
/// crashed test process would hold open. The reads block: call them off the cooperative pool.
public final class ChildOutputLines: Sendable {
    private let child: ChildProcess
    /// Bytes of the file already returned as lines.
    private let consumed = NIOLockedValueBox(0)

    public init(_ child: ChildProcess) {
        self.child = child
    }

    /// The next line (without its newline) once the child has written it whole; once the child
    /// has exited, what is left of an unfinished last line, or `nil` when nothing is. `nil`
    /// too after `timeout` seconds.
    public func next(timeout: TimeInterval = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let running = child.isRunning()
            if let line = take(allowingUnfinished: !running) { return line }
            if !running || Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Every line not returned yet; call it once the child has exited.
    public func rest() -> [String] {
        var lines: [String] = []
        while let line = take(allowingUnfinished: true) { lines.append(line) }
        return lines
    }

    /// Takes the next whole line from the file, or with `allowingUnfinished` the unfinished
    /// remainder when there is no whole one.
    private func take(allowingUnfinished: Bool) -> String? {
        consumed.withLockedValue { consumed -> String? in
            guard let data = FileManager.default.contents(atPath: child.outputPath), data.count > consumed else {
                return nil
            }
            let unread = data[(data.startIndex + consumed)...]
            if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
                consumed += newline - unread.startIndex + 1
                return String(decoding: unread[..<newline], as: UTF8.self)
            }
            guard allowingUnfinished else { return nil }
            consumed += unread.count
            return String(decoding: unread, as: UTF8.self)
        }
    }
}
