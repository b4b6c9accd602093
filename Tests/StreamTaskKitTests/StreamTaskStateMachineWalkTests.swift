//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import StreamTaskTestSupport
import Testing

@testable import StreamTaskCore

/// Random walks through the state machine: thousands of sequences of inputs that a channel and
/// a caller could really produce, in any order. None may reach a trap, every operation must
/// complete exactly once, reads must hand out the received bytes in order, none twice, and
/// nothing may move while the task is suspended.
@Suite struct StreamTaskStateMachineWalkTests {
    typealias Machine = StreamTaskStateMachine

    /// What the walk knows, as the machine's owner would: which operations are open, which
    /// writes and TLS transitions the machine started, what was read.
    struct Walk {
        var machine = Machine.startedForTests(highWaterMark: 16)
        var random: SplitMix64
        var nextID: UInt64 = 0
        var open: Set<UInt64> = []
        var completions: [UInt64: Int] = [:]
        var writesWithChannel: [UInt64] = []
        var transitionsUnderway: [UInt64] = []
        var connected = false
        var closed = false
        /// Received bytes are 0, 1, 2, … so that reads can be checked for order.
        var nextByte: UInt8 = 0
        var readBytes: [UInt8] = []
        var log: [String] = []
        /// Operations that moved while the machine held them (suspended, connection not gone).
        var movedWhileHeld: [String] = []

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
        }

        mutating func apply(_ actions: Machine.Actions) {
            for action in actions {
                switch action {
                case .succeedRead(let id, let bytes, _, _):
                    readBytes += Array(bytes.readableBytesView)
                    complete(id)
                case .succeed(let id, _), .fail(let id, _, _):
                    complete(id)
                case .write(let id, _, _):
                    writesWithChannel.append(id.rawValue)
                case .startTLS(let id, _, _), .stopTLS(let id):
                    transitionsUnderway.append(id.rawValue)
                case .captureStreams(let id, _):
                    complete(id)
                case .flush, .shutdownOutput, .shutdownInput, .requestInput, .close, .emit, .confirmWrites:
                    break
                }
            }
        }

        /// Applies the actions of an input that cannot move a held operation (an operation
        /// enqueued, bytes, the end of input, writability, the connection coming up).
        mutating func applyHolding(_ actions: Machine.Actions) {
            if machine.holdsOperations {
                for action in actions {
                    switch action {
                    case .fail, .requestInput, .emit: break
                    default: movedWhileHeld.append("\(action) after \(log.last ?? "")")
                    }
                }
            }
            apply(actions)
        }

        mutating func complete(_ id: OperationID) {
            completions[id.rawValue, default: 0] += 1
            open.remove(id.rawValue)
            writesWithChannel.removeAll { $0 == id.rawValue }
            transitionsUnderway.removeAll { $0 == id.rawValue }
        }

        mutating func enqueue(_ operation: Machine.Operation) {
            nextID += 1
            open.insert(nextID)
            log.append("enqueue \(operation) as \(nextID)")
            applyHolding(machine.enqueue(operation, id: OperationID(rawValue: nextID)))
        }

        /// A write nobody hears of (`write(_:timeout:promise:)` with no promise): it must
        /// never be reported, and must not hold up what waits for the writes before it.
        mutating func enqueueSilentWrite() {
            nextID += 1
            log.append("enqueue a silent write as \(nextID)")
            applyHolding(
                machine.enqueue(
                    .write(ByteBuffer(bytes: [4, 5])), id: OperationID(rawValue: nextID), completion: .promise(nil)))
        }

        /// One input that could really come next.
        mutating func step() {
            let roll = Int.random(in: 0..<106, using: &random)
            switch roll {
            case 0..<8:
                enqueue(.read(minLength: Int.random(in: 0...6, using: &random), maxLength: 8))
            case 8..<14:
                enqueue(.readThrough(delimiter: [nextByte &+ UInt8.random(in: 0...4, using: &random)], maxLength: 10))
            case 14..<20:
                enqueue(.write(ByteBuffer(bytes: [1, 2, 3])))
            case 20..<24:
                enqueueSilentWrite()
            case 24..<26:
                enqueue(.closeRead)
            case 26..<28:
                enqueue(.closeWrite)
            case 28..<30:
                let role =
                    Bool.random(using: &random)
                    ? TLSRole.client(StreamTLSConfiguration()) : TLSRole.server(StreamTLSConfiguration())
                enqueue(.startTLS(role))
            case 30..<31:
                enqueue(.stopTLS)
            case 31..<32:
                enqueue(.captureStreams)
            case 32..<40 where !connected && !closed:
                connected = true
                log.append("connected")
                applyHolding(machine.connected())
            case 40..<55 where connected && nextByte < 240:
                let count = Int.random(in: 1...5, using: &random)
                let bytes = (0..<count).map { nextByte &+ UInt8($0) }
                nextByte &+= UInt8(count)
                log.append("received \(bytes)")
                applyHolding(machine.received(ByteBuffer(bytes: bytes)))
            case 55..<62 where connected:
                log.append("receiveCompleted")
                applyHolding(machine.receiveCompleted())
            case 62..<66 where connected:
                let truncation = Bool.random(using: &random) ? StreamTaskError(.tlsTruncated, "cut") : nil
                log.append("inputEnded truncated: \(truncation != nil)")
                applyHolding(machine.inputEnded(truncation: truncation))
            case 66..<72:
                let writable = Bool.random(using: &random)
                log.append("writable \(writable)")
                applyHolding(machine.writabilityChanged(writable))
            case 72..<82 where !writesWithChannel.isEmpty:
                let id = writesWithChannel.randomElement(using: &random)!
                let error = Bool.random(using: &random) ? nil : StreamTaskError(.connectionReset, "reset")
                log.append("writeCompleted \(id) failed: \(error != nil)")
                apply(machine.writesCompleted(through: OperationID(rawValue: id), error: error).actions)
            case 82..<88 where !transitionsUnderway.isEmpty:
                let id = transitionsUnderway.randomElement(using: &random)!
                let error = Bool.random(using: &random) ? nil : StreamTaskError(.tlsHandshakeFailed, "refused")
                log.append("tlsTransitionCompleted \(id) failed: \(error != nil)")
                apply(machine.tlsTransitionCompleted(OperationID(rawValue: id), error: error))
            case 88..<94 where !open.isEmpty:
                let id = open.randomElement(using: &random)!
                log.append("abandon \(id)")
                apply(machine.abandon(OperationID(rawValue: id), error: StreamTaskError(.timedOut, "timed out")))
            case 94..<97:
                closed = true
                log.append("closed")
                apply(
                    machine.closed(
                        error: Bool.random(using: &random) ? nil : StreamTaskError(.connectionReset, "reset")))
            case 97..<99:
                closed = true
                log.append("cancel")
                apply(machine.cancel())
            case 100..<103 where machine.isRunning:
                log.append("suspend")
                apply(machine.suspend())
            case 103..<106 where machine.hasStarted && machine.taskState == .suspended:
                log.append("resume")
                apply(machine.resume())
            default:
                break
            }
        }
    }

    @Test(arguments: 0..<20)
    func legalInputsNeverTrapAndEveryOperationCompletesOnce(batch: UInt64) {
        for seed in (batch * 100)..<(batch * 100 + 100) {
            var walk = Walk(seed: seed)
            for _ in 0..<60 { walk.step() }
            // The connection goes away in the end, and so does whatever was still waiting.
            walk.apply(walk.machine.closed(error: StreamTaskError(.connectionReset, "reset")))
            walk.apply(walk.machine.cancel())
            #expect(
                walk.movedWhileHeld.isEmpty,
                "seed \(seed): moved while suspended: \(walk.movedWhileHeld)\n\(walk.log.joined(separator: "\n"))")
            let twice = walk.completions.filter { $0.value > 1 }.map(\.key)
            #expect(
                twice.isEmpty, "seed \(seed): completed more than once: \(twice)\n\(walk.log.joined(separator: "\n"))")
            #expect(
                walk.open.isEmpty,
                "seed \(seed): never completed: \(walk.open.sorted())\n\(walk.log.joined(separator: "\n"))")
            let inOrder = zip(walk.readBytes, walk.readBytes.dropFirst()).allSatisfy { $0 < $1 }
            #expect(inOrder, "seed \(seed): reads handed out \(walk.readBytes)\n\(walk.log.joined(separator: "\n"))")
            if !(twice.isEmpty && walk.open.isEmpty && inOrder && walk.movedWhileHeld.isEmpty) { return }
        }
    }
}
