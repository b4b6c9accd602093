//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// The article on how a task works is where a newcomer learns the core's shape: every source
/// file it names exists, and every type it names in code voice is declared in Sources (or is
/// one of the package's modules).
struct HowATaskWorksArticleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let article = root.appendingPathComponent("Sources/StreamTaskCore/Docs.docc/HowATaskWorks.md")

    /// The paths of every Swift file under Sources.
    static func sourceFiles() throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        let walker = FileManager.default.enumerator(atPath: sources.path)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".swift") { files.append(path) }
        }
        return files
    }

    static func matches(of pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func everyFileTheArticleNamesExists() throws {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let named = Set(try Self.matches(of: "([A-Za-z+]+\\.swift)", in: text))
        #expect(!named.isEmpty)
        let files = Set(try Self.sourceFiles().map { ($0 as NSString).lastPathComponent })
        for file in named.sorted() {
            #expect(files.contains(file), "HowATaskWorks.md names \(file), which is not in Sources")
        }
    }

    @Test func everyTypeTheArticleNamesInCodeVoiceIsDeclared() throws {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        // `StreamTaskDriver`, `SubmissionInbox.Entry`: a capitalised name in code voice.
        let named = Set(try Self.matches(of: "`([A-Z][A-Za-z]+)(?:\\.[A-Za-z]+)?`", in: text))
        #expect(named.contains("StreamTaskDriver"))
        var declarations = ""
        for file in try Self.sourceFiles() {
            declarations += try String(
                contentsOf: Self.root.appendingPathComponent("Sources").appendingPathComponent(file), encoding: .utf8)
        }
        let modules = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path)
        for type in named.subtracting(modules).sorted() {
            let declared = try !Self.matches(
                of: "((?:struct|class|enum|protocol|actor|typealias|extension) \(type)\\b)", in: declarations
            ).isEmpty
            #expect(declared, "HowATaskWorks.md names `\(type)`, which nothing in Sources declares")
        }
    }
}
