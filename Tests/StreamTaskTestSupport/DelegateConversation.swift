//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A Darwin-style stream delegate on a thread of its own: it schedules both streams in that
/// thread's run loop, writes `line` and ends its output when there is space, and reads at
/// most `readSize` bytes per `hasBytesAvailable` until the end. Its state is touched on that
/// thread only until ``runOnThreadOfItsOwn()`` returns.
public final class DelegateConversation: NSObject, StreamDelegate, @unchecked Sendable {
    public struct Event: Sendable {
        public let stream: String
        public let event: Stream.Event
        public let onTheRunLoopThread: Bool
    }

    public let input: InputStream
    public let output: OutputStream
    private var line: [UInt8]
    private let readSize: Int
    private var thread: Thread?
    public private(set) var events: [Event] = []
    /// Each stream's `streamError` when it reported `errorOccurred`, by stream.
    public private(set) var errors: [String: any Error] = [:]
    private var bytes: [UInt8] = []
    private var ended = false
    public var received: String { String(decoding: bytes, as: UTF8.self) }

    public init(input: InputStream, output: OutputStream, line: String, readSize: Int) {
        self.input = input
        self.output = output
        self.line = Array(line.utf8)
        self.readSize = readSize
    }

    /// Runs the conversation; whether the input's end came within 20 s.
    public func runOnThreadOfItsOwn() async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                for stream in [input, output] as [Stream] {
                    stream.delegate = self
                    stream.schedule(in: .current, forMode: .default)
                    stream.open()
                }
                let deadline = Date(timeIntervalSinceNow: 20)
                while !ended && Date() < deadline {
                    RunLoop.current.run(until: min(deadline, Date(timeIntervalSinceNow: 0.05)))
                }
                input.close()
                continuation.resume(returning: ended)
            }
            self.thread = thread
            thread.start()
        }
    }

    public func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        let name = aStream === input ? "input" : "output"
        events.append(Event(stream: name, event: eventCode, onTheRunLoopThread: Thread.current === thread))
        switch eventCode {
        case .hasSpaceAvailable where !line.isEmpty:
            let written = output.write(line, maxLength: line.count)
            if written > 0 { line.removeFirst(written) }
            if line.isEmpty { output.close() }
        case .hasBytesAvailable:
            var buffer = [UInt8](repeating: 0, count: readSize)
            let count = input.read(&buffer, maxLength: readSize)
            if count > 0 { bytes += buffer[0..<count] }
        case .errorOccurred:
            errors[name] = aStream.streamError
            ended = true
        case .endEncountered:
            ended = true
        default:
            break
        }
    }
}
