//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Shared by every fuzz target: compiled into each target's binary with the library sources it
// fuzzes (see scripts/fuzz.sh), so it may use their internal types.

#if canImport(Glibc)
import Glibc
#endif

/// Stops the run with `message` when an invariant does not hold: libFuzzer reports it as a
/// crash and keeps the input, like any other failure.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        var text = "fuzz invariant failed: \(message())\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        abort()
    }
}

/// Reads an input from its front: a few bytes steer the harness (chunk sizes, limits), the rest
/// is the data. Out of bytes, every read returns 0 so short inputs still run.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    var rest: [UInt8] { Array(bytes) }

    /// Splits `data` into chunks whose sizes come from `sizes`, cycling (each 1...maxChunk).
    static func chunks(_ data: [UInt8], sizes: [UInt8], maxChunk: Int) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var offset = 0
        var index = 0
        while offset < data.count {
            let wanted = sizes.isEmpty ? data.count : 1 + Int(sizes[index % sizes.count]) % maxChunk
            let end = min(data.count, offset + wanted)
            result.append(Array(data[offset..<end]))
            offset = end
            index += 1
        }
        return result
    }
}
