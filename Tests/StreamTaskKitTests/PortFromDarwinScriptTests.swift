//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// `scripts/port-from-darwin.sh` applies the porting rule and nothing else.
@Suite(.timeLimit(.minutes(1))) struct PortFromDarwinScriptTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/port-from-darwin.sh").path

    /// Ports `source` in a file of its own and returns the result.
    private func port(_ source: String) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: file) }
        try source.write(to: file, atomically: true, encoding: .utf8)
        let result = await RouteLab.run(["bash", Self.script, file.path])
        #expect(result.status == 0, "\(result.output)")
        return try String(contentsOf: file, encoding: .utf8)
    }

    @Test func typeNamesChangeAndMethodNamesErrorsAndNetServiceStay() async throws {
        let darwin = """
            import Foundation

            final class Client: NSObject, URLSessionStreamDelegate {
                let session = URLSession(configuration: URLSessionConfiguration.default, delegate: nil, delegateQueue: nil)
                var disposition: URLSession.ResponseDisposition = .allow
                let browser = NetServiceBrowser()
                func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
                    if (error as? URLError)?.code == .timedOut || (error as NSError?)?.code == NSURLErrorTimedOut {}
                }
                let unrelated = MyURLSessionWrapper()
            }

            """
        let ported = """
            import Foundation
            import StreamTaskKit
            import StreamTaskDNSSD

            final class Client: NSObject, StreamSessionStreamDelegate {
                let session = StreamSession(configuration: StreamSessionConfiguration.default, delegate: nil, delegateQueue: nil)
                var disposition: StreamSession.ResponseDisposition = .allow
                let browser = NetServiceBrowser()
                func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: Error?) {
                    if (error as? URLError)?.code == .timedOut || (error as NSError?)?.code == NSURLErrorTimedOut {}
                }
                let unrelated = MyURLSessionWrapper()
            }

            """
        #expect(try await port(darwin) == ported)
        // A second run changes nothing.
        #expect(try await port(ported) == ported)
    }

    /// Code that declares its own `NetService` qualifies Foundation's: the qualifier names
    /// the module that has the type on Linux.
    @Test func namesQualifiedWithFoundationNameTheModuleThatHasThem() async throws {
        let darwin = """
            import Foundation
            final class NetService: NSObject, Foundation.NetServiceDelegate {
                var service: Foundation.NetService?
                var task: Foundation.URLSessionStreamTask?
                let session = Foundation.URLSession.shared
                let data = Foundation.Data()
            }

            """
        let ported = """
            import Foundation
            import StreamTaskKit
            import StreamTaskDNSSD
            final class NetService: NSObject, StreamTaskDNSSD.NetServiceDelegate {
                var service: StreamTaskDNSSD.NetService?
                var task: StreamTaskKit.StreamSessionStreamTask?
                let session = StreamTaskKit.StreamSession.shared
                let data = Foundation.Data()
            }

            """
        #expect(try await port(darwin) == ported)
        #expect(try await port(ported) == ported)
    }

    @Test func withoutBonjourOnlyTheKitIsImported() async throws {
        let ported = try await port("import Foundation\nlet session = URLSession.shared\n")
        #expect(ported == "import Foundation\nimport StreamTaskKit\nlet session = StreamSession.shared\n")
    }
}
