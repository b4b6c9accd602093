import ChatProtocol
import ChatServerCore
import Foundation
import StreamTaskKit

/// A chat server in this process on 127.0.0.1 and a free port, for one test.
struct ChatServerFixture {
    static func identity(tls: Bool = false) -> ChatServerIdentity {
        ChatServerIdentity(serverName: "chat.test", networkName: "Test Chat", createdText: "today", offersSTARTTLS: tls)
    }

    /// Runs `body` with a started server, then shuts it down.
    static func with<T>(
        tls: StreamTLSConfiguration? = nil,
        _ configure: (inout ChatServerConfiguration) -> Void = { _ in },
        _ body: (ChatServer, Int) async throws -> T
    ) async throws -> T {
        var configuration = ChatServerConfiguration(identity: identity(tls: tls != nil), tls: tls)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configure(&configuration)
        let server = ChatServer(configuration: configuration)
        try await server.start()
        let running = Task { await server.run() }
        do {
            let result = try await body(server, server.port!)
            await server.shutdown()
            await running.value
            return result
        } catch {
            await server.shutdown()
            await running.value
            throw error
        }
    }

    /// A fresh self-signed certificate made the way the chat server makes its own.
    static func makeTLS() throws -> StreamTLSConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ChatCertificateStore(directory: directory).loadOrCreate(commonName: "chat.test").tls
    }
}
