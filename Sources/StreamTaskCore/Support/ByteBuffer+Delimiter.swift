//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

extension ByteBuffer {
    /// The length of the readable prefix that ends with the first occurrence of `delimiter`,
    /// provided the delimiter ends within the first `limit` readable bytes.
    func endOfFirst(_ delimiter: [UInt8], within limit: Int) -> Int? {
        let count = Swift.min(limit, readableBytes)
        guard let first = delimiter.first, count >= delimiter.count else { return nil }
        return withUnsafeReadableBytes { raw -> Int? in
            let bytes = UnsafeRawBufferPointer(rebasing: raw.prefix(count))
            var start = 0
            while start + delimiter.count <= count {
                guard let found = bytes[start...].firstIndex(of: first) else { return nil }
                let end = found + delimiter.count
                guard end <= count else { return nil }
                if delimiter.count == 1 || bytes[found..<end].elementsEqual(delimiter) {
                    return end
                }
                start = found + 1
            }
            return nil
        }
    }
}
