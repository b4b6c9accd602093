//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Protocol.md, read from the repository so that the document and the code cannot drift.
struct ProtocolDocument {
    /// One `C:` or `S:` line of an example.
    struct ExampleLine: CustomStringConvertible {
        let fromClient: Bool
        /// The wire line without CR LF; `\x01` in the document stands for the byte 0x01.
        let line: String
        let lineNumber: Int

        var description: String { "Protocol.md:\(lineNumber) \(fromClient ? "C" : "S"): \(line)" }
    }

    let lines: [String]

    init(filePath: String = #filePath) throws {
        let url = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // ChatProtocolTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the repository
            .appendingPathComponent("Protocol.md")
        lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    }

    /// Every line that starts with `C: ` or `S: `.
    var examples: [ExampleLine] {
        lines.enumerated().compactMap { index, text in
            guard text.hasPrefix("C: ") || text.hasPrefix("S: ") else { return nil }
            let line = String(text.dropFirst(3)).replacingOccurrences(of: "\\x01", with: "\u{01}")
            return ExampleLine(fromClient: text.hasPrefix("C"), line: line, lineNumber: index + 1)
        }
    }

    /// The cells of the table rows under the heading that starts with `heading`, the header
    /// row and the separator left out; backquotes removed.
    func table(under heading: String) -> [[String]] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("#") && $0.contains(heading) }) else { return [] }
        let rows = lines[(start + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return rows.dropFirst(2).map { row in
            row.split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
        }
    }
}
